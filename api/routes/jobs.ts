import { Router } from 'express';
import { LIST_LIMIT } from '../../shared/jobs/rules';
import { completeBodySchema, emptyBodySchema, listBodySchema } from '../../shared/jobs/schemas';
import { signed } from '../middleware/signed';
import { validate } from '../middleware/validate';
import { completionView, jobView, reservationView } from '../presenters/jobs';
import type { Services } from '../services';

export const JOB_WORKFLOW_TOKEN_HEADER = 'X-Job-Workflow-Token';

export function jobRoutes(services: Services): Router {
  const router = Router();
  const jobs = services.jobs;

  router.post('/jobs/list', validate({ body: listBodySchema }), signed(services, 'job_list', { readOnly: true }), async (_req, res) => {
    const { limit = LIST_LIMIT.default, skip = 0 } = res.locals.body;
    const [, page] = await Promise.all([res.locals.claim, jobs.list(limit, skip)]);
    res.json({ success: true, data: { jobs: page.jobs.map((j) => jobView(j.job, j.taken)), limit: page.limit, skip: page.skip, has_more: page.has_more } });
  });

  router.post('/jobs/:jobId/reserve', validate({ body: emptyBodySchema }), signed(services, 'job_reserve'), async (req, res) => {
    const { reservation, job, workflowToken } = await jobs.reserve(res.locals.wallet, String(req.params.jobId));
    if (workflowToken) res.set(JOB_WORKFLOW_TOKEN_HEADER, workflowToken);
    res.json({
      success: true,
      data: {
        ...reservationView(reservation, new Date()),
        job_kind: job.kind,
        reward_credits: job.reward_credits,
        ...(workflowToken ? { workflow_token: workflowToken } : {}),
      },
    });
  });

  router.post('/jobs/:jobId/status', validate({ body: emptyBodySchema }), signed(services, 'job_status', { readOnly: true }), async (req, res) => {
    const [, s] = await Promise.all([res.locals.claim, jobs.status(res.locals.wallet, String(req.params.jobId))]);
    const now = new Date();
    res.json({
      success: true,
      data: {
        job: jobView(s.job, s.taken),
        reservation: s.reservation ? reservationView(s.reservation, now) : null,
        completion: s.completion ? completionView(s.completion) : null,
        completions_used: s.used,
        can_reserve: s.canReserve,
      },
    });
  });

  router.post('/jobs/:jobId/complete', validate({ body: completeBodySchema }), signed(services, 'job_complete'), async (req, res) => {
    const completion = await jobs.complete(res.locals.wallet, String(req.params.jobId), res.locals.body);
    res.json({ success: true, data: completionView(completion) });
  });

  return router;
}
