import { Router } from 'express';
import type { AppDeps } from '../deps';
import { healthDetails } from '../services/health';

export function healthRoutes(deps: AppDeps): Router {
  const router = Router();
  // The spec: ok whenever the process accepts requests, whatever the store or Temporal are doing.
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/health/details', async (_req, res) => {
    res.json(await healthDetails(deps));
  });
  return router;
}
