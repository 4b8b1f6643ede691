import { Connection, Schema } from 'mongoose';

/** What one attempt came to: `retry` waits for the next one; the rest are final for their message. */
export type AttemptOutcome = 'delivered' | 'retry' | 'failed' | 'stopped' | 'refused';

/**
 * One POST of a run's callback (its delivery log): inserted once per attempt, never updated.
 * `kind` tells the scheduled deliveries from replays a group asked for. The body is kept only on
 * the final scheduled attempt (`final`), the one a replay sends again; it is never presented.
 */
export interface CallbackAttemptDoc {
  /** ids.deliveryAttempt(): sorts in the order the attempts were made. */
  _id: string;
  run_id: string;
  group_id: string;
  webhook_id: string;
  kind: 'delivery' | 'replay';
  /** The scheduled attempt's number (1-based); null for a replay. */
  attempt: number | null;
  replay_id: string | null;
  /** The agent token that asked for the replay; null for a scheduled attempt. */
  requested_by: string | null;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  outcome: AttemptOutcome;
  /** What the group may read: no resolved address, no internal detail. */
  error: string | null;
  /** `<scheme>:<key version>` of each signature sent (e.g. `v1:0`, `v1a:2`). */
  signed_with: string[];
  final: boolean;
  body: string | null;
}

const schema = new Schema<CallbackAttemptDoc>(
  {
    _id: { type: String, required: true },
    run_id: { type: String, required: true },
    group_id: { type: String, required: true },
    webhook_id: { type: String, required: true },
    kind: { type: String, required: true },
    attempt: { type: Number, default: null },
    replay_id: { type: String, default: null },
    requested_by: { type: String, default: null },
    attempted_at: { type: Date, required: true },
    status_code: { type: Number, default: null },
    latency_ms: { type: Number, required: true },
    outcome: { type: String, required: true },
    error: { type: String, default: null },
    signed_with: { type: [String], default: [] },
    final: { type: Boolean, default: false },
    body: { type: String, default: null },
  },
  { collection: 'webhook_callback_attempts', versionKey: false },
);
schema.index({ run_id: 1, _id: 1 });

export function callbackAttemptModel(conn: Connection) {
  return conn.models.CallbackAttempt ?? conn.model<CallbackAttemptDoc>('CallbackAttempt', schema);
}
