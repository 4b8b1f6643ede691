import { RequestHandler, Router } from 'express';
import { workflowListQuerySchema } from '../../shared/public-workflows/schemas';
import { sessionActiveBodySchema, sessionEndBodySchema, sessionFetchBodySchema, sessionStartBodySchema } from '../../shared/workflow-sessions/schemas';
import { signed } from '../middleware/signed';
import { validate } from '../middleware/validate';
import { requestClient, type CountingRateLimiter } from '../services/rate-limit';
import type { Services } from '../services';


/**
 * Published workflows (public listings, no envelope) and wallet sessions (signed):
 * GET /workflows, GET /workflows/{id}, POST /workflows/{id}/start|fetch|end, POST /workflows/active.
 */
export function workflowRoutes(services: Services): Router {
  const router = Router();
  const listings = services.publicWorkflows;
  const sessions = services.workflowSessions;
  const limits = services.workflowLimits;

  // Sessions run wallet-authored graphs on shared workers: the client is counted before the
  // signature is checked, the wallet only once it proved it signed (nobody uses up another's).
  const perClient = (limiter: CountingRateLimiter, what: string): RequestHandler => (req, _res, next) =>
    limiter.enforce(`${what}:ip:${requestClient(req)}`, `workflow ${what}s from one address`).then(() => next(), next);
  const perWallet = (limiter: CountingRateLimiter, what: string): RequestHandler => (_req, res, next) =>
    limiter.enforce(`${what}:wallet:${res.locals.wallet}`, `workflow ${what}s for one wallet`).then(() => next(), next);
  const startLimits = [perClient(limits.startPerClient, 'start'), validate({ body: sessionStartBodySchema }), signed(services, 'workflow_start'), perWallet(limits.startPerWallet, 'start')];
  const fetchLimits = [perClient(limits.fetchPerClient, 'fetch'), validate({ body: sessionFetchBodySchema }), signed(services, 'workflow_fetch'), perWallet(limits.fetchPerWallet, 'fetch')];

  router.get('/workflows', validate({ query: workflowListQuerySchema }), async (_req, res) => {
    res.json({ success: true, data: await listings.list(res.locals.query) });
  });

  router.post('/workflows/active', validate({ body: sessionActiveBodySchema }), signed(services, 'workflow_active', { readOnly: true }), async (_req, res) => {
    const [, list] = await Promise.all([res.locals.claim, sessions.active(res.locals.wallet, res.locals.body.instance_id)]);
    res.json({ success: true, data: { sessions: list } });
  });

  router.get('/workflows/:workflowId', async (req, res) => {
    res.json({ success: true, data: await listings.detail(String(req.params.workflowId)) });
  });

  router.post('/workflows/:workflowId/start', ...startLimits, async (req, res) => {
    const { session, resumed } = await sessions.start(res.locals.wallet, String(req.params.workflowId), res.locals.body.instance_id);
    res.json({ success: true, data: { ...session, resumed } });
  });

  router.post('/workflows/:workflowId/fetch', ...fetchLimits, async (req, res) => {
    res.json({ success: true, data: await sessions.fetch(res.locals.wallet, String(req.params.workflowId), res.locals.body) });
  });

  router.post('/workflows/:workflowId/end', validate({ body: sessionEndBodySchema }), signed(services, 'workflow_end'), async (req, res) => {
    const { session, alreadyEnded } = await sessions.end(res.locals.wallet, String(req.params.workflowId), res.locals.body.workflow_session_id);
    res.json({ success: true, data: { ...session, already_ended: alreadyEnded } });
  });

  return router;
}
