import { Connection, Schema } from 'mongoose';

/** A trigger's idempotency key: `_id` = `<group_id>:<request_id>`; the first insert decides the run. */
export interface WebhookRunRequestDoc {
  _id: string;
  run_id: string;
  /** sha256 of the canonical JSON of what was asked (prompt, callback_url, request_metadata, workflow). */
  request_hash: string;
  created_at: Date;
}

const schema = new Schema<WebhookRunRequestDoc>(
  {
    _id: { type: String, required: true },
    run_id: { type: String, required: true },
    request_hash: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'webhook_run_requests', versionKey: false },
);

export function webhookRunRequestModel(conn: Connection) {
  return conn.models.WebhookRunRequest ?? conn.model<WebhookRunRequestDoc>('WebhookRunRequest', schema);
}
