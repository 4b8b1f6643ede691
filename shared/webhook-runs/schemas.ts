import Joi from 'joi';
import { MAX_KEY_OVERLAP_SECONDS } from '../platform/config/index';

export const runIdSchema = Joi.string().pattern(/^run_[0-9a-f]{24}$/);

/** The body of POST /api/agent-webhooks/{workflowId}/trigger. */
export const triggerBodySchema = Joi.object({
  prompt: Joi.string().min(1).max(100_000).required(),
  request_id: Joi.string()
    .pattern(/^[A-Za-z0-9._:@-]{1,128}$/)
    .messages({ 'string.pattern.base': 'must be 1-128 characters of A-Z a-z 0-9 . _ : @ -' }),
  callback_url: Joi.string()
    .max(2048)
    .uri({ scheme: ['https'] })
    .messages({ 'string.uriCustomScheme': 'must be an https URL' }),
  request_metadata: Joi.object().unknown(true),
}).unknown(false);

export interface TriggerBody {
  prompt: string;
  request_id?: string;
  callback_url?: string;
  request_metadata?: Record<string, unknown>;
}

/** POST .../cancel takes an optional body; the reason is stored cut to MAX_CANCEL_REASON characters. */
export const MAX_CANCEL_REASON = 500;
export const cancelBodySchema = Joi.object({
  reason: Joi.string().max(10_000),
  cancel_request_id: Joi.string().pattern(/^[A-Za-z0-9._:@-]{1,128}$/),
});

export const MAX_METADATA_BYTES = 16 * 1024;

/** GET .../deliveries: a page of the delivery log, after an attempt id. */
export const deliveriesQuerySchema = Joi.object({
  limit: Joi.number().integer().min(1).max(100).default(50),
  after: Joi.string().pattern(/^dla_[0-9a-z]{9}[0-9a-f]{12}$/),
});

/** POST /api/agent-webhooks/signing-keys/rotate. */
export const rotateBodySchema = Joi.object({
  scheme: Joi.string().valid('v1', 'v1a'),
  overlap_seconds: Joi.number().integer().min(0).max(MAX_KEY_OVERLAP_SECONDS),
}).unknown(false);
/** The longest a GET of a run may hold its answer for the run's end (below common proxy timeouts). */
export const MAX_RUN_WAIT_SECONDS = 30;
export const runWaitQuerySchema = Joi.object({
  wait_seconds: Joi.number()
    .min(0)
    .max(MAX_RUN_WAIT_SECONDS)
    .description(
      `Answer as soon as the run is terminal, or after this many seconds (0–${MAX_RUN_WAIT_SECONDS}, fractions allowed) with the run as it is then. Without it the run is answered at once.`,
    ),
});
