import Joi from 'joi';
import { errors } from '../../shared/errors';
import type { AppDeps } from '../deps';
import { healthDetails, isOperatorToken } from '../services/health';

import type { Operation } from '../operations/types';

/** Mounted before any body parser: /health answers whatever body or content type comes with it. */
export function healthOperations(deps: AppDeps): Operation[] {
  const common = { host: 'bearer', tag: 'Operations', errors: 'gateway' } as const;
  return [
    {
      // The spec: ok whenever the process accepts requests, whatever the store or Temporal are doing.
      ...common,
      id: 'health',
      method: 'get',
      anyMethod: true,
      path: '/health',
      auth: [{ kind: 'none' }],
      summary: 'Liveness: ok whenever the process accepts requests (any method)',
      responses: { 200: { description: 'Alive', body: Joi.object({ status: Joi.string().required() }) } },
      errorStatuses: [],
      examples: [{ name: 'ok', request: {}, response: { status: 200, body: { status: 'ok' } } }],
      handler: (_req, res) => {
        res.json({ status: 'ok' });
      },
    },
    {
      ...common,
      id: 'healthDetails',
      method: 'get',
      path: '/health/details',
      auth: [{ kind: 'none' }, { kind: 'operator' }],
      summary: 'Dependency states; full details with the operator token',
      request: { headers: Joi.object({ 'x-health-token': Joi.string().description('The operator token (or Authorization: Bearer)') }) },
      responses: { 200: { description: 'Dependency states', body: Joi.object({ status: Joi.string().required() }).unknown() } },
      errorStatuses: [401],
      examples: [{ name: 'summary', request: {}, response: { status: 200, body: { status: 'ok', store: 'up', temporal: 'up' } } }],
      handler: async (req, res) => {
        const presented = /^Bearer (.+)$/i.exec(req.header('authorization') ?? '')?.[1] ?? req.header('x-health-token');
        const full = isOperatorToken(presented, deps.config.healthDetailsToken);
        // A token that does not match is refused, so an operator's typo is not mistaken for a healthy summary.
        if (presented && !full) throw errors.unauthorized('health_token_invalid', 'the operator token for /health/details is not valid');
        res.setHeader('Cache-Control', 'no-store');
        res.json(await healthDetails(deps, full));
      },
    },
  ];
}

