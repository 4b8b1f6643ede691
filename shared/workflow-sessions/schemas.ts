import Joi from 'joi';
import { kindOf, NODE_TYPES } from '../workflows/index';

const envelopeKeys = {
  wallet_address: Joi.any(),
  session_nonce: Joi.any(),
  request_id: Joi.any(),
  signature: Joi.any(),
};
export const instanceIdSchema = Joi.string()
  .pattern(/^[A-Za-z0-9._:@-]{1,128}$/)
  .messages({ 'string.pattern.base': 'must be 1-128 characters of A-Z a-z 0-9 . _ : @ -' });
export const sessionIdSchema = Joi.string()
  .pattern(/^wss_[0-9a-f]{24}$/)
  .messages({ 'string.pattern.base': 'must be a workflow_session_id (wss_…)' });

/** Without instance_id a session belongs to the instance `default`. */
export const DEFAULT_INSTANCE = 'default';

export const sessionStartBodySchema = Joi.object({ ...envelopeKeys, instance_id: instanceIdSchema });
/** workflow_session_id / instance_id select among the wallet's own sessions; fetch signs `{}` (docs/signing.md, "Actions"), so they are unsigned read selectors. */
export const sessionFetchBodySchema = Joi.object({
  ...envelopeKeys,
  workflow_session_id: sessionIdSchema,
  instance_id: instanceIdSchema,
});
export const sessionEndBodySchema = Joi.object({ ...envelopeKeys, workflow_session_id: sessionIdSchema });
export const sessionActiveBodySchema = Joi.object({ ...envelopeKeys, instance_id: instanceIdSchema });

const isoDate = Joi.string().isoDate();

const nodeResultSchema = Joi.object({
  node_id: Joi.string().required(),
  type: Joi.string().required(),
  status: Joi.string().valid('pending', 'completed', 'skipped', 'failed', 'setup_required', 'cancelled').required(),
  output: Joi.any().description(NODE_TYPES.map((t) => kindOf(t).output).join(', ')),
  error: Joi.string().allow(null).required(),
  error_code: Joi.string()
    .allow(null)
    .description(
      'insufficient_credits, budget_exceeded, setup_required, session_ended, ... (absent in sessions recorded before it existed)',
    ),
  credits_charged: Joi.number().integer().required(),
  transaction_id: Joi.string().allow(null).description('the purchase transaction of a paid tool node'),
  finished_at: isoDate.allow(null).required(),
});

/** A workflow session record (start, fetch, end answer it; docs/workflows-public.md). */
export const sessionViewSchema = Joi.object({
  workflow_session_id: sessionIdSchema.required(),
  workflow_id: Joi.string().required(),
  version: Joi.string().required().description('the published version the session runs'),
  instance_id: Joi.string().required(),
  status: Joi.string().valid('active', 'ended').required(),
  end_reason: Joi.string().valid('ended_by_wallet', 'idle_timeout', 'start_failed').allow(null).required(),
  run: Joi.object({
    status: Joi.string().valid('pending', 'running', 'completed', 'failed', 'setup_required', 'cancelled').required(),
    nodes: Joi.array().items(nodeResultSchema).required(),
    response_text: Joi.string().allow(null).required(),
    error: Joi.string().allow(null).required(),
    error_code: Joi.string().allow(null).description('the code of the node failure that stopped the run'),
    credits_charged: Joi.number().integer().required(),
  }).required(),
  started_at: isoDate.required(),
  last_activity_at: isoDate.required(),
  ended_at: isoDate.allow(null).required(),
  idle_timeout_seconds: Joi.number().integer().required(),
});
