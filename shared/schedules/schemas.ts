import Joi from 'joi';
import type { LeaseBounds } from './claim-rules';
import type { ScheduleOutcome } from './repository';

export const SCHEDULE_ID = /^sch_[0-9a-f]{24}$/;
const token = Joi.string().min(1).max(200);

export const scheduleIdParam = Joi.object({ scheduleId: Joi.string().pattern(SCHEDULE_ID).required() });

export function claimBodySchema(lease: LeaseBounds) {
  return Joi.object({
    schedule_id: Joi.string().pattern(SCHEDULE_ID),
    lease_seconds: Joi.number().integer().min(lease.minSeconds).max(lease.maxSeconds).default(lease.defaultSeconds),
  });
}
export interface ClaimBody {
  schedule_id?: string;
  lease_seconds: number;
}

export const advanceBody = Joi.object({
  due_at: Joi.date().iso().required(),
  claim_token: token.required(),
  outcome: Joi.string().valid('success', 'failed', 'skipped'),
  external_run_id: Joi.string().max(200),
  note: Joi.string().max(2000).allow(''),
});
export interface AdvanceBody {
  due_at: Date;
  claim_token: string;
  outcome?: ScheduleOutcome;
  external_run_id?: string;
  note?: string;
}

export const releaseBody = Joi.object({
  due_at: Joi.date().iso().required(),
  claim_token: token.required(),
  note: Joi.string().max(2000).allow(''),
});
export interface ReleaseBody {
  due_at: Date;
  claim_token: string;
  note?: string;
}

export const dueQuery = Joi.object({
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: Joi.string().max(200),
});
export interface DueQuery {
  limit: number;
  cursor?: string;
}
