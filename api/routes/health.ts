import { Router } from 'express';
import { errors } from '../../shared/errors';
import type { AppDeps } from '../deps';
import { healthDetails, isOperatorToken } from '../services/health';

/** Mounted before any body parser: /health answers whatever body or content type comes with it. */
export function healthRoutes(deps: AppDeps): Router {
  const router = Router();
  // The spec: ok whenever the process accepts requests, whatever the store or Temporal are doing.
  router.all('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/health/details', async (req, res) => {
    const presented = /^Bearer (.+)$/i.exec(req.header('authorization') ?? '')?.[1] ?? req.header('x-health-token');
    const full = isOperatorToken(presented, deps.config.healthDetailsToken);
    // A token that does not match is refused, so an operator's typo is not mistaken for a healthy summary.
    if (presented && !full) throw errors.unauthorized('health_token_invalid', 'the operator token for /health/details is not valid');
    res.setHeader('Cache-Control', 'no-store');
    res.json(await healthDetails(deps, full));
  });
  return router;
}
