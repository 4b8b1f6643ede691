import { Connection, Schema } from 'mongoose';
import type { RunBucketDoc } from '../run-buckets';

const schema = new Schema<RunBucketDoc>(
  {
    _id: { type: String, required: true },
    parent: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { collection: 'webhook_run_buckets', versionKey: false },
);
// A workspace's days, a day's hours: read by equality on the parent.
schema.index({ parent: 1 });

/** The days and hours that hold a workspace's runs (inserted once each; see run-buckets.ts). */
export function runBucketModel(conn: Connection) {
  return conn.models.WebhookRunBucket ?? conn.model<RunBucketDoc>('WebhookRunBucket', schema);
}
