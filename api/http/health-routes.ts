import Joi from 'joi';
import type { AppDeps } from '../../shared/composition/deps';
import { errors } from '../../shared/platform/errors/index';
import { healthDetails, isOperatorToken } from '../../shared/platform/health/service';
import type { Operation } from './operations/types';

const detailsAnswer = Joi.object({
  status: Joi.string().valid('ok').required(),
  store: Joi.string().valid('up', 'down', 'index_failed').required(),
  temporal: Joi.string().valid('up', 'down').required(),
  detail: Joi.string().valid('full'),
  store_state: Joi.string(),
  store_error: Joi.string(),
  last_ping: Joi.object({
    workflow_id: Joi.string(),
    recorded_at: Joi.string().isoDate().required(),
    worker: Joi.string().allow(null),
  })
    .allow(null)
    .required(),
});

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
      request: {
        headers: Joi.object({
          'x-health-token': Joi.string().allow('').description('The operator token (or Authorization: Bearer)'),
        }),
      },
      responses: {
        200: { description: 'Dependency states (the full form with the operator token)', body: detailsAnswer },
      },
      errorStatuses: [401],
      examples: [
        {
          name: 'summary',
          request: {},
          response: {
            status: 200,
            body: { status: 'ok', store: 'up', temporal: 'up', last_ping: { recorded_at: '2026-01-01T12:00:00.000Z' } },
          },
        },
      ],
      handler: async (req, res) => {
        const presented = /^Bearer (.+)$/i.exec(req.header('authorization') ?? '')?.[1] ?? req.header('x-health-token');
        const full = isOperatorToken(presented, deps.config.healthDetailsToken);
        // A token that does not match is refused, so an operator's typo is not mistaken for a healthy summary.
        if (presented && !full)
          throw errors.unauthorized('health_token_invalid', 'the operator token for /health/details is not valid');
        res.setHeader('Cache-Control', 'no-store');
        res.json(await healthDetails({ db: deps.db, temporalUp: deps.engines.up }, full));
      },
    },
  ];
}
