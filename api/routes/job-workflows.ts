import { Router, type RequestHandler } from 'express';
import { jobWorkflowCreateSchema, jobWorkflowPublishSchema, jobWorkflowUpdateSchema } from '../../shared/job-workflows/schemas';
import type { SignedAction } from '../../shared/signing';
import { signed } from '../middleware/signed';
import { validate } from '../middleware/validate';
import { jobWorkflowView } from '../presenters/job-workflows';
import type { Services } from '../services';
import { JOB_WORKFLOW_TOKEN_HEADER } from './jobs';

declare module 'express-serve-static-core' {
  interface Locals {
    /** With X-Job-Workflow-Token: the reservation the token was issued with. */
    jobWorkflowReservationId?: string;
  }
}

/**
 * Either authorisation the spec allows: the signed envelope (a body carrying `signature`), or
 * else the X-Job-Workflow-Token from the reserve answer. Neither: the signed path answers 422/401.
 */
function envelopeOrToken(services: Services, action: SignedAction): RequestHandler {
  const viaEnvelope = signed(services, action);
  return (req, res, next) => {
    const token = req.get(JOB_WORKFLOW_TOKEN_HEADER);
    if (token && (req.body ?? {}).signature === undefined) {
      try {
        const { wallet, reservationId } = services.jobWorkflows.walletFromToken(token, String(req.params.jobId));
        res.locals.wallet = wallet;
        res.locals.jobWorkflowReservationId = reservationId;
        return next();
      } catch (err) {
        return next(err);
      }
    }
    return viaEnvelope(req, res, next);
  };
}

/** POST /jobs/{jobId}/workflow/create, PUT /jobs/{jobId}/workflow/{workflowId}, POST .../{workflowId}/publish. */
export function jobWorkflowRoutes(services: Services): Router {
  const router = Router();
  const service = services.jobWorkflows;
  const auth = (res: { locals: { wallet: string; jobWorkflowReservationId?: string } }) => ({ wallet: res.locals.wallet, reservationId: res.locals.jobWorkflowReservationId });

  router.post('/jobs/:jobId/workflow/create', validate({ body: jobWorkflowCreateSchema }), envelopeOrToken(services, 'job_workflow_create'), async (req, res) => {
    const view = await service.create(auth(res), String(req.params.jobId), res.locals.body);
    res.json({ success: true, data: jobWorkflowView(view) });
  });

  router.put('/jobs/:jobId/workflow/:workflowId', validate({ body: jobWorkflowUpdateSchema }), envelopeOrToken(services, 'job_workflow_update'), async (req, res) => {
    const view = await service.update(auth(res), String(req.params.jobId), String(req.params.workflowId), res.locals.body);
    res.json({ success: true, data: jobWorkflowView(view) });
  });

  router.post('/jobs/:jobId/workflow/:workflowId/publish', validate({ body: jobWorkflowPublishSchema }), envelopeOrToken(services, 'job_workflow_publish'), async (req, res) => {
    const view = await service.publish(auth(res), String(req.params.jobId), String(req.params.workflowId), res.locals.body);
    res.json({ success: true, data: jobWorkflowView(view) });
  });

  return router;
}
