import { Connection, Schema } from 'mongoose';

export type JobKind = 'social_share' | 'workflow_creation' | 'proof';
export type JobState = 'draft' | 'open' | 'paused' | 'closed';
export type JobReview = 'auto' | 'manual';
export type JobReviewDefault = 'approve' | 'reject';

/** A platform-funded job (fields documented in docs/jobs.md and shared/jobs/schemas.ts). */
export interface JobDoc {
  _id: string;
  kind: JobKind;
  title: string;
  description: string;
  reward_credits: number;
  slots: number;
  reservation_window_seconds: number;
  max_completions_per_wallet: number;
  target_url: string | null;
  /** social_share: the platforms a post may be on (lower-case names, see shared/jobs/rules.ts). */
  platforms: string[];
  review: JobReview;
  review_deadline_seconds: number;
  review_default: JobReviewDefault;
  state: JobState;
  expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const schema = new Schema<JobDoc>(
  {
    _id: { type: String, required: true },
    kind: { type: String, required: true },
    title: { type: String, required: true },
    description: { type: String, default: '' },
    reward_credits: { type: Number, required: true },
    slots: { type: Number, required: true },
    reservation_window_seconds: { type: Number, required: true },
    max_completions_per_wallet: { type: Number, required: true },
    target_url: { type: String, default: null },
    platforms: { type: [String], default: [] },
    review: { type: String, required: true },
    review_deadline_seconds: { type: Number, required: true },
    review_default: { type: String, required: true },
    state: { type: String, required: true },
    expires_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'jobs', versionKey: false },
);
schema.index({ state: 1, created_at: -1 });

export function jobModel(conn: Connection) {
  return conn.models.Job ?? conn.model<JobDoc>('Job', schema);
}
