import { Connection, Schema } from 'mongoose';

/**
 * A replay a group asked for (its audit record: who, when, which message), inserted before the
 * replay starts; its result is the delivery log's attempt with the same `replay_id`.
 */
export interface CallbackReplayDoc {
  _id: string;
  run_id: string;
  group_id: string;
  webhook_id: string;
  /** The agent token id that asked. */
  requested_by: string;
  requested_at: Date;
}

const schema = new Schema<CallbackReplayDoc>(
  {
    _id: { type: String, required: true },
    run_id: { type: String, required: true },
    group_id: { type: String, required: true },
    webhook_id: { type: String, required: true },
    requested_by: { type: String, required: true },
    requested_at: { type: Date, required: true },
  },
  { collection: 'webhook_callback_replays', versionKey: false },
);
schema.index({ run_id: 1, requested_at: 1 });

export function callbackReplayModel(conn: Connection) {
  return conn.models.CallbackReplay ?? conn.model<CallbackReplayDoc>('CallbackReplay', schema);
}
