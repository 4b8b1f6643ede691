import { Connection, Schema } from 'mongoose';

export type CompletionStatus = 'verifying' | 'awaiting_review' | 'approved' | 'rejected' | 'paid';
export type JobPaymentStatus = 'not_due' | 'pending' | 'awaiting_funds' | 'paid';
export type StepStatus = 'passed' | 'failed' | 'skipped';

export interface SocialPost {
  platform: string;
  post_url: string;
  target_url_used: string;
  message_text: string;
  posted_at?: string;
}

/** One verification step as the status endpoint shows it. */
export interface VerificationStep {
  name: string;
  status: StepStatus;
  detail: string;
  at: Date;
}

export interface CompletionDecision {
  outcome: 'approved' | 'rejected';
  by: 'automated' | 'operator' | 'deadline_default';
  reason: string;
  at: Date;
}

export interface CompletionPayment {
  status: JobPaymentStatus;
  credits: number;
  grant_id: string | null;
  transaction_id: string | null;
  paid_at: Date | null;
  /** Set while awaiting_funds: the platform account's balance when the payment was last tried. */
  platform_balance: number | null;
  attempts: number;
}

/**
 * A wallet's completion of one reservation; `_id` is the completion id and the verification
 * workflow's id. `reservation_id` is unique: one completion per reservation. Only the
 * verification workflow's activities write it after creation.
 */
export interface JobCompletionDoc {
  _id: string;
  job_id: string;
  wallet: string;
  reservation_id: string;
  kind: string;
  proof_text: string;
  social_posts: SocialPost[];
  workflow_id: string | null;
  status: CompletionStatus;
  steps: VerificationStep[];
  decision: CompletionDecision | null;
  review_deadline_at: Date | null;
  payment: CompletionPayment;
  created_at: Date;
  updated_at: Date;
}

const schema = new Schema<JobCompletionDoc>(
  {
    _id: { type: String, required: true },
    job_id: { type: String, required: true },
    wallet: { type: String, required: true },
    reservation_id: { type: String, required: true, unique: true },
    kind: { type: String, required: true },
    proof_text: { type: String, required: true },
    social_posts: { type: Schema.Types.Mixed, default: [] },
    workflow_id: { type: String, default: null },
    status: { type: String, required: true },
    steps: { type: Schema.Types.Mixed, default: [] },
    decision: { type: Schema.Types.Mixed, default: null },
    review_deadline_at: { type: Date, default: null },
    payment: { type: Schema.Types.Mixed, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'job_completions', versionKey: false },
);
schema.index({ job_id: 1, wallet: 1 });

export function jobCompletionModel(conn: Connection) {
  return conn.models.JobCompletion ?? conn.model<JobCompletionDoc>('JobCompletion', schema);
}
