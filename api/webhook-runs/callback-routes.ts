import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import { deliveriesQuerySchema, rotateBodySchema, runIdSchema } from '../../shared/webhook-runs/index';
import { EXAMPLE, ok } from '../http/operations/shapes';
import type { Operation } from '../http/operations/types';
import { presentAttempt, presentKey, presentReplay } from './callback-presenters';
import { groupOperation } from './group-operation';

const runParam = Joi.object({ runId: runIdSchema.required() });
const iso = Joi.string().isoDate().allow(null);
const RUN_ID = 'run_65f0c3a2b1d4e5f60718293a';
const AUTH = { authorization: 'Bearer agt_example' };

const attemptSchema = Joi.object({
  attempt_id: Joi.string().required(),
  kind: Joi.string().valid('delivery', 'replay').required(),
  attempt: Joi.number().integer().allow(null).required(),
  replay_id: Joi.string().allow(null).required(),
  requested_by: Joi.string().allow(null).required(),
  attempted_at: iso.required(),
  status_code: Joi.number().integer().allow(null).required(),
  latency_ms: Joi.number().integer().min(0).required(),
  outcome: Joi.string().valid('delivered', 'retry', 'failed', 'stopped', 'refused').required(),
  error: Joi.string().allow(null).required(),
  signed_with: Joi.array().items(Joi.string()).required(),
});
const replaySchema = Joi.object({
  replay_id: Joi.string().required(),
  run_id: Joi.string().required(),
  webhook_id: Joi.string().required(),
  requested_by: Joi.string().required(),
  requested_at: iso.required(),
  status: Joi.string().valid('pending').required(),
});
const keySchema = Joi.object({
  version: Joi.number().integer().min(0).required(),
  scheme: Joi.string().valid('v1', 'v1a').required(),
  public_key: Joi.string().allow(null).required(),
  created_at: iso.required(),
  valid_until: iso.required(),
});

const exampleAttempt = {
  attempt_id: 'dla_lzx1a2b3c0123456789ab',
  kind: 'delivery',
  attempt: 1,
  replay_id: null,
  requested_by: null,
  attempted_at: EXAMPLE.time,
  status_code: 200,
  latency_ms: 84,
  outcome: 'delivered',
  error: null,
  signed_with: ['v1:0'],
};

/** A group's callbacks: the delivery log of a run, replay, signing keys and their rotation. */
export function callbackOperations(services: Services): Operation[] {
  const callbacks = services.callbacks;
  const limits = services.limits;
  const common = groupOperation(services);

  return [
    {
      ...common,
      id: 'listRunDeliveries',
      method: 'get',
      path: '/api/agent-webhooks/runs/{runId}/deliveries',
      summary: "A run's callback delivery log: every attempt and replay, oldest first",
      description:
        'Paged: `limit` (1-100, default 50) and `after` (the `next_cursor` of the previous page). Errors read as the group may see them (a refused address names no address).',
      request: { params: runParam, query: deliveriesQuerySchema },
      responses: {
        200: {
          description: 'A page of attempts',
          body: ok(
            Joi.object({
              run_id: Joi.string().required(),
              webhook_id: Joi.string().required(),
              callback_status: Joi.string().required(),
              deliveries: Joi.array().items(attemptSchema).required(),
              next_cursor: Joi.string().allow(null).required(),
            }),
          ),
        },
      },
      errorStatuses: [400, 401, 404, 500],
      examples: [
        {
          name: 'delivered',
          request: { params: { runId: RUN_ID }, query: { limit: 50 }, headers: AUTH },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                run_id: RUN_ID,
                webhook_id: `msg_${RUN_ID}`,
                callback_status: 'delivered',
                deliveries: [exampleAttempt],
                next_cursor: null,
              },
            },
          },
        },
      ],
      handler: async (req, res) => {
        const page = await callbacks.deliveries(res.locals.group!, req.params.runId as string, res.locals.query);
        res.json({
          success: true,
          data: {
            run_id: req.params.runId,
            webhook_id: page.webhookId,
            callback_status: page.callbackStatus,
            deliveries: page.attempts.map(presentAttempt),
            next_cursor: page.next,
          },
        });
      },
    },
    {
      ...common,
      id: 'replayRunCallback',
      method: 'post',
      path: '/api/agent-webhooks/runs/{runId}/deliveries/replay',
      summary: "Send a finished run's final callback again (same webhook-id, fresh signature)",
      description:
        'One POST of the body the last scheduled attempt sent, under the same `webhook-id`, with a new timestamp and signatures. Answers 202 before the POST; its result appears in the delivery log under `replay_id`. The run is not changed. Rate limited per group.',
      request: { params: runParam },
      responses: {
        202: { description: 'Replay recorded and started', body: ok(Joi.object({ replay: replaySchema.required() })) },
      },
      errorStatuses: [400, 401, 404, 409, 429, 500, 503],
      examples: [
        {
          name: 'started',
          request: { params: { runId: RUN_ID }, headers: AUTH },
          response: {
            status: 202,
            body: {
              success: true,
              data: {
                replay: {
                  replay_id: 'rpl_0123456789abcdef01234567',
                  run_id: RUN_ID,
                  webhook_id: `msg_${RUN_ID}`,
                  requested_by: 'agtid_0123456789abcdef',
                  requested_at: EXAMPLE.time,
                  status: 'pending',
                },
              },
            },
          },
        },
      ],
      handler: async (req, res) => {
        const group = res.locals.group!;
        await limits.replayPerGroup.enforce(`callback-replay:${group.group._id}`, 'callback replays per group');
        const replay = await callbacks.replay(group, req.params.runId as string);
        res.status(202).json({ success: true, data: { replay: presentReplay(replay) } });
      },
    },
    {
      ...common,
      id: 'listSigningKeys',
      method: 'get',
      path: '/api/agent-webhooks/signing-keys',
      summary: "The group's callback signing keys in force (ed25519 public keys as whpk_…)",
      description:
        'Newest first; while a rotation overlap lasts the older key is listed with `valid_until` and every callback carries a signature from each.',
      responses: {
        200: { description: 'Keys in force', body: ok(Joi.object({ keys: Joi.array().items(keySchema).required() })) },
      },
      errorStatuses: [401, 500],
      examples: [
        {
          name: 'ed25519 after a rotation',
          request: { headers: AUTH },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                keys: [
                  {
                    version: 1,
                    scheme: 'v1a',
                    public_key: 'whpk_Gq8HbKdRX0Y1n0wWf3h0w9f5m1cQbGm0qvHcJ2o3l0k=',
                    created_at: EXAMPLE.time,
                    valid_until: null,
                  },
                  { version: 0, scheme: 'v1', public_key: null, created_at: null, valid_until: EXAMPLE.time },
                ],
              },
            },
          },
        },
      ],
      handler: async (_req, res) => {
        const keys = await callbacks.signingKeys(res.locals.group!);
        res.json({ success: true, data: { keys: keys.map(presentKey) } });
      },
    },
    {
      ...common,
      id: 'rotateSigningKey',
      method: 'post',
      path: '/api/agent-webhooks/signing-keys/rotate',
      summary: "Rotate the group's callback signing key (v1 HMAC or v1a ed25519), with an overlap",
      description:
        'A new key signs from now on; the previous one keeps signing beside it for `overlap_seconds` (default CALLBACK_KEY_OVERLAP_SECONDS, at most 7 days). A v1 key returns its `whsec_` secret once; a v1a key returns its `whpk_` public key (the private key never leaves the service).',
      request: { body: rotateBodySchema },
      responses: {
        200: {
          description: 'The new key',
          body: ok(
            Joi.object({
              key: keySchema.required(),
              secret: Joi.string().allow(null).required(),
              previous_valid_until: iso.required(),
            }),
          ),
        },
      },
      errorStatuses: [400, 401, 409, 429, 500],
      examples: [
        {
          name: 'to ed25519',
          request: { headers: AUTH, body: { scheme: 'v1a', overlap_seconds: 86400 } },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                key: {
                  version: 1,
                  scheme: 'v1a',
                  public_key: 'whpk_Gq8HbKdRX0Y1n0wWf3h0w9f5m1cQbGm0qvHcJ2o3l0k=',
                  created_at: EXAMPLE.time,
                  valid_until: null,
                },
                secret: null,
                previous_valid_until: EXAMPLE.time,
              },
            },
          },
        },
      ],
      handler: async (_req, res) => {
        const group = res.locals.group!;
        await limits.rotatePerGroup.enforce(`signing-key-rotate:${group.group._id}`, 'key rotations per group');
        const r = await callbacks.rotate(group, res.locals.body ?? {});
        res.json({
          success: true,
          data: { key: presentKey(r.key), secret: r.secret, previous_valid_until: r.previousValidUntil.toISOString() },
        });
      },
    },
  ];
}
