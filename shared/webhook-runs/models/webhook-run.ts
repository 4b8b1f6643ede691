import { Connection, Schema } from 'mongoose';

export type RunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'setup_required' | 'cancelled';
export type CallbackStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

/** What the run did per node (ours; keys are fixed). */
export interface RunNodeRecord {
  id: string;
  type: string;
  status: 'completed' | 'failed' | 'skipped' | 'cancelled' | 'setup_required';
  worker?: string;
  credits_charged?: number;
  transaction_id?: string;
  error_code?: string;
  /** When the run's workflow handed the node out and saw it end (its task times; absent on runs recorded before). */
  started_at?: string;
  ended_at?: string;
  /** The node's output as text, cut short (nodeOutputPreview): for the console's run page, not the API's run resource. */
  output?: string;
  /** Set when `output` was cut, or left out because the run's previews were used up. */
  output_cut?: boolean;
}

/**
 * A webhook-triggered run (`_id` = run id = Temporal workflow id). Written by the API once
 * (insert, queued) and afterwards only by its own Temporal workflows' activities, one at a
 * time: the run workflow (running, then the terminal state) and then the callback delivery
 * workflow (callback_*). Cancel requests live in webhook_run_cancels so no two writers ever
 * touch this document at once (FerretDB applies filtered updates as read-modify-write).
 */
export interface WebhookRunDoc {
  _id: string;
  workflow_id: string;
  workflow_version: string | null;
  group_id: string;
  budget_id: string;
  workspace_id: string;
  request_id: string | null;
  status: RunStatus;
  prompt: string;
  response_text: string | null;
  session_id: string | null;
  model: string | null;
  error_code: string | null;
  error_message: string | null;
  callback_url: string | null;
  callback_status: CallbackStatus;
  callback_last_status: number | null;
  callback_last_error: string | null;
  callback_attempted_at: Date | null;
  callback_delivered_at: Date | null;
  callback_attempts: number;
  /** The caller's request_metadata as JSON text (free-form keys). */
  request_metadata_json: string | null;
  /** trace_id: the trigger request's trace (OpenTelemetry), when tracing is on. */
  run_metadata: { workflow_version: string | null; nodes: RunNodeRecord[]; trace_id?: string };
  created_at: Date;
  updated_at: Date;
  queued_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  failed_at: Date | null;
  setup_required_at: Date | null;
  cancelled_at: Date | null;
  /** The console's bucket keys (run-buckets.ts): set at insert, from fields that never change. */
  console_keys?: string[];
}

const schema = new Schema<WebhookRunDoc>(
  {
    _id: { type: String, required: true },
    workflow_id: { type: String, required: true },
    workflow_version: { type: String, default: null },
    group_id: { type: String, required: true },
    budget_id: { type: String, required: true },
    workspace_id: { type: String, required: true },
    request_id: { type: String, default: null },
    status: { type: String, required: true },
    prompt: { type: String, required: true },
    response_text: { type: String, default: null },
    session_id: { type: String, default: null },
    model: { type: String, default: null },
    error_code: { type: String, default: null },
    error_message: { type: String, default: null },
    callback_url: { type: String, default: null },
    callback_status: { type: String, required: true },
    callback_last_status: { type: Number, default: null },
    callback_last_error: { type: String, default: null },
    callback_attempted_at: { type: Date, default: null },
    callback_delivered_at: { type: Date, default: null },
    callback_attempts: { type: Number, default: 0 },
    request_metadata_json: { type: String, default: null },
    run_metadata: { type: Schema.Types.Mixed, default: {} },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    queued_at: { type: Date, required: true },
    started_at: { type: Date, default: null },
    completed_at: { type: Date, default: null },
    failed_at: { type: Date, default: null },
    setup_required_at: { type: Date, default: null },
    cancelled_at: { type: Date, default: null },
    console_keys: { type: [String], default: undefined },
  },
  { collection: 'webhook_runs', versionKey: false },
);
schema.index({ group_id: 1, created_at: -1 });
// The console's pages of a workspace's runs: equality on a bucket key (run-buckets.ts).
schema.index({ console_keys: 1 });
// The run healer's page: queued runs oldest first.
schema.index({ status: 1, created_at: 1, _id: 1 });

export function webhookRunModel(conn: Connection) {
  return conn.models.WebhookRun ?? conn.model<WebhookRunDoc>('WebhookRun', schema);
}
