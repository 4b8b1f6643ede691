import { Router } from 'express';
import Joi from 'joi';
import { fullRun, shortRun } from '../../shared/runs/present';
import { cancelBodySchema, runIdSchema, triggerBodySchema } from '../../shared/runs/schemas';
import { workflowIdSchema } from '../../shared/workflows/schemas';
import { agentGroup } from '../middleware/agent-group';
import { validate } from '../middleware/validate';
import type { Services } from '../services';

const workflowParam = Joi.object({ workflowId: workflowIdSchema.required() });
const runParam = Joi.object({ runId: runIdSchema.required() });

const params = (schema: Joi.ObjectSchema) => validate({ params: schema });

/** /api/agent-webhooks: trigger, poll and cancel runs with an agent group's bearer token. */
export function agentWebhookRoutes(services: Services): Router {
  const router = Router();
  const runs = services.webhookRuns;

  router.post('/:workflowId/trigger', params(workflowParam), agentGroup(services), validate({ body: triggerBodySchema }), async (req, res) => {
    const result = await runs.trigger(res.locals.group!, req.params.workflowId as string, res.locals.body);
    res.status(result.httpStatus).json({
      success: true,
      data: { run: shortRun(result.record), status_url: result.statusUrl },
      message: result.replayed ? 'existing run for this request_id' : 'run queued',
    });
  });

  router.get('/runs/:runId', params(runParam), agentGroup(services), async (req, res) => {
    res.json({ success: true, data: { run: fullRun(await runs.get(res.locals.group!, req.params.runId as string)) } });
  });

  router.post('/runs/:runId/cancel', params(runParam), agentGroup(services), validate({ body: cancelBodySchema }), async (req, res) => {
    const record = await runs.cancel(res.locals.group!, req.params.runId as string, res.locals.body);
    res.json({ success: true, data: { run: fullRun(record) } });
  });

  return router;
}
