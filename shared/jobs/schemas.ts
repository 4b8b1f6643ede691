/**
 * Joi schemas of the job records as clients and operators see them, and of the request bodies.
 * The record schemas are the documentation of the fields (docs/jobs.md mirrors them) and are
 * OpenAPI-ready (joi-to-openapi); the services build views that satisfy them.
 */
import Joi from 'joi';
import { workflowIdSchema } from '../workflows/index';
import { DEFAULTS, JOB_KINDS, JOB_STATES, LIST_LIMIT, LIST_SKIP_MAX, PLATFORM_HOSTS } from './rules';

const id = (prefix: string) => Joi.string().pattern(new RegExp(`^${prefix}_[A-Za-z0-9]{8,40}$`));
export const jobId = id('job');
export const reservationId = id('res');
export const completionId = id('cmp');
const httpUrl = Joi.string()
  .uri({ scheme: ['http', 'https'] })
  .max(2048);
const isoDate = Joi.date().iso();

/** Operator input of job:create. */
export const jobCreateSchema = Joi.object({
  kind: Joi.string()
    .valid(...JOB_KINDS)
    .required(),
  title: Joi.string().trim().min(1).max(200).required(),
  description: Joi.string().max(5000).allow('').default(''),
  reward_credits: Joi.number().integer().min(1).max(10_000_000).required(),
  slots: Joi.number().integer().min(1).max(10_000).default(DEFAULTS.slots),
  reservation_window_seconds: Joi.number()
    .integer()
    .min(60)
    .max(30 * 86400)
    .default(DEFAULTS.reservationWindowSeconds),
  max_completions_per_wallet: Joi.number().integer().min(1).max(1000).default(DEFAULTS.maxCompletionsPerWallet),
  target_url: httpUrl
    .allow(null)
    .default(null)
    .when('kind', { is: 'social_share', then: Joi.required().invalid(null) }),
  platforms: Joi.array()
    .items(
      Joi.string()
        .lowercase()
        .valid(...Object.keys(PLATFORM_HOSTS)),
    )
    .unique()
    .default([]),
  review: Joi.string().valid('auto', 'manual'),
  review_deadline_seconds: Joi.number()
    .integer()
    .min(60)
    .max(90 * 86400)
    .default(DEFAULTS.reviewDeadlineSeconds),
  review_default: Joi.string().valid('approve', 'reject').default(DEFAULTS.reviewDefault),
  state: Joi.string().valid('draft', 'open').default('draft'),
  expires_at: isoDate.allow(null).default(null),
});
export interface JobCreateInput {
  kind: 'social_share' | 'workflow_creation' | 'proof';
  title: string;
  description?: string;
  reward_credits: number;
  slots?: number;
  reservation_window_seconds?: number;
  max_completions_per_wallet?: number;
  target_url?: string | null;
  platforms?: string[];
  review?: 'auto' | 'manual';
  review_deadline_seconds?: number;
  review_default?: 'approve' | 'reject';
  state?: 'draft' | 'open';
  expires_at?: Date | string | null;
}

/** A job as the list and status endpoints show it. */
export const jobViewSchema = Joi.object({
  job_id: jobId.required(),
  kind: Joi.string()
    .valid(...JOB_KINDS)
    .required(),
  title: Joi.string().required(),
  description: Joi.string().allow('').required(),
  reward_credits: Joi.number().integer().required(),
  slots: Joi.number().integer().required(),
  slots_available: Joi.number()
    .integer()
    .min(0)
    .required()
    .description('slots not held by an active reservation or a completion that is not rejected'),
  reservation_window_seconds: Joi.number().integer().required(),
  max_completions_per_wallet: Joi.number().integer().required(),
  target_url: httpUrl.allow(null).required(),
  platforms: Joi.array()
    .items(Joi.string())
    .required()
    .description('social_share: accepted platforms; empty means any known platform'),
  review: Joi.string().valid('auto', 'manual').required(),
  review_deadline_seconds: Joi.number().integer().required(),
  review_default: Joi.string().valid('approve', 'reject').required(),
  state: Joi.string()
    .valid(...JOB_STATES)
    .required(),
  expires_at: isoDate.allow(null).required(),
  created_at: isoDate.required(),
});

export const reservationViewSchema = Joi.object({
  reservation_id: reservationId.required(),
  job_id: jobId.required(),
  status: Joi.string().valid('active', 'completed', 'expired', 'cancelled').required(),
  expires_at: isoDate.required(),
  created_at: isoDate.required(),
  completion_id: completionId.allow(null).required(),
  workflow_token: Joi.string().description('workflow_creation jobs, on reserve only: the X-Job-Workflow-Token'),
});

const stepSchema = Joi.object({
  name: Joi.string().required(),
  status: Joi.string().valid('passed', 'failed', 'skipped', 'waiting', 'done').required(),
  detail: Joi.string().allow('').required(),
  at: isoDate.allow(null).required(),
});

export const completionViewSchema = Joi.object({
  completion_id: completionId.required(),
  reservation_id: reservationId.required(),
  status: Joi.string().valid('verifying', 'awaiting_review', 'approved', 'rejected', 'paid').required(),
  verification: Joi.object({
    steps: Joi.array().items(stepSchema).required(),
    decision: Joi.object({
      outcome: Joi.string().valid('approved', 'rejected').required(),
      by: Joi.string().valid('automated', 'operator', 'deadline_default').required(),
      reason: Joi.string().allow('').required(),
      at: isoDate.required(),
    })
      .allow(null)
      .required(),
    review_deadline_at: isoDate.allow(null).required(),
  }).required(),
  payment: Joi.object({
    status: Joi.string().valid('not_due', 'pending', 'awaiting_funds', 'paid').required(),
    credits: Joi.number().integer().required(),
    grant_id: Joi.string().allow(null).required(),
    paid_at: isoDate.allow(null).required(),
  }).required(),
  created_at: isoDate.required(),
});

/** `data` of POST /jobs/{jobId}/status. */
export const jobStatusSchema = Joi.object({
  job: jobViewSchema.required(),
  reservation: reservationViewSchema.allow(null).required(),
  completion: completionViewSchema.allow(null).required(),
  completions_used: Joi.number().integer().required(),
  can_reserve: Joi.boolean().required(),
});

// ---- request bodies (the envelope fields are checked by the signed middleware) ----

const envelopeKeys = {
  wallet_address: Joi.any(),
  session_nonce: Joi.any(),
  request_id: Joi.any(),
  signature: Joi.any(),
};

export const listBodySchema = Joi.object({
  ...envelopeKeys,
  limit: Joi.number().integer().strict().min(1).max(LIST_LIMIT.max),
  skip: Joi.number().integer().strict().min(0).max(LIST_SKIP_MAX),
});

export const emptyBodySchema = Joi.object(envelopeKeys);

export const socialPostSchema = Joi.object({
  platform: Joi.string().trim().min(1).max(40).required(),
  post_url: httpUrl.required(),
  target_url_used: httpUrl.required(),
  message_text: Joi.string().min(1).max(10_000).required(),
  posted_at: isoDate.raw(),
});

export const completeBodySchema = Joi.object({
  ...envelopeKeys,
  proof_text: Joi.string().trim().min(1).max(10_000).required(),
  reservation_id: reservationId,
  social_posts: Joi.array().items(socialPostSchema).min(1).max(20),
  workflow_id: workflowIdSchema,
});
export interface CompleteBody {
  proof_text: string;
  reservation_id?: string;
  social_posts?: Array<{
    platform: string;
    post_url: string;
    target_url_used: string;
    message_text: string;
    posted_at?: string;
  }>;
  workflow_id?: string;
}
