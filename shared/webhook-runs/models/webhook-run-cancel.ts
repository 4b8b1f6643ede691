import { Connection, Schema } from 'mongoose';

/** The cancel request of a run (`_id` = run id): the first one is kept, later ones find it. */
export interface WebhookRunCancelDoc {
  _id: string;
  cancel_request_id: string;
  cancel_requested_at: Date;
  cancel_requested_by_user_id: string;
  cancel_reason: string | null;
}

const schema = new Schema<WebhookRunCancelDoc>(
  {
    _id: { type: String, required: true },
    cancel_request_id: { type: String, required: true },
    cancel_requested_at: { type: Date, required: true },
    cancel_requested_by_user_id: { type: String, required: true },
    cancel_reason: { type: String, default: null },
  },
  { collection: 'webhook_run_cancels', versionKey: false },
);

export function webhookRunCancelModel(conn: Connection) {
  return conn.models.WebhookRunCancel ?? conn.model<WebhookRunCancelDoc>('WebhookRunCancel', schema);
}
