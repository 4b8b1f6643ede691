import { errors } from '../../shared/platform/errors/index';
import { metricsText, scrapeAllowed } from '../../shared/platform/metrics/index';
import type { Operation } from './operations/types';

/**
 * GET /metrics for Prometheus. With METRICS_TOKEN set it wants `Authorization: Bearer <token>`;
 * without (never in production, which requires the token), it is open.
 * Needs neither the store nor Temporal, so it answers through an outage.
 */
export function metricsOperations(token: string | undefined): Operation[] {
  return [
    {
      id: 'metrics',
      method: 'get',
      path: '/metrics',
      host: 'bearer',
      auth: [{ kind: 'operator' }],
      tag: 'Operations',
      summary: 'Prometheus metrics (text exposition format)',
      responses: { 200: { description: 'Metrics', contentType: 'text/plain' } },
      errorStatuses: [401],
      errors: 'gateway',
      examples: [
        {
          name: 'metrics',
          request: { headers: { authorization: 'Bearer operator-token' } },
          response: { status: 200, body: '# HELP http_requests_total ...' },
        },
      ],
      handler: async (req, res) => {
        if (!scrapeAllowed(req.header('authorization'), token))
          throw errors.unauthorized('metrics_token_invalid', 'GET /metrics needs the operator token METRICS_TOKEN');
        const { contentType, body } = await metricsText();
        res.setHeader('Cache-Control', 'no-store');
        res.type(contentType).send(body);
      },
    },
  ];
}
