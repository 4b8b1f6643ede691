import { Router } from 'express';
import { errors } from '../../shared/errors';
import { metricsText } from '../../shared/metrics';
import { isOperatorToken } from '../services/health';

/**
 * GET /metrics for Prometheus. With METRICS_TOKEN set it wants `Authorization: Bearer <token>`;
 * without, it is open (keep the bearer host's /metrics off the public internet at the proxy).
 * Needs neither the store nor Temporal, so it answers through an outage.
 */
export function metricsRoutes(token: string | undefined): Router {
  const router = Router();
  router.get('/metrics', async (req, res) => {
    if (token) {
      const presented = /^Bearer (.+)$/i.exec(req.header('authorization') ?? '')?.[1];
      if (!isOperatorToken(presented, token)) throw errors.unauthorized('metrics_token_invalid', 'GET /metrics needs the operator token METRICS_TOKEN');
    }
    const { contentType, body } = await metricsText();
    res.setHeader('Cache-Control', 'no-store');
    res.type(contentType).send(body);
  });
  return router;
}
