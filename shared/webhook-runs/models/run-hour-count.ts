import { Connection, Schema } from 'mongoose';
import type { RunStatus } from './webhook-run';

/**
 * How many of a workspace's runs created in one hour ended in each status (`_id` = the hour's
 * bucket key, `parent` = its day's). Written once, only for an hour that is over and whose runs
 * have all ended, so it never changes afterwards.
 */
export interface RunHourCountDoc {
  _id: string;
  parent: string;
  at: Date;
  counts: Partial<Record<RunStatus, number>>;
}

const schema = new Schema<RunHourCountDoc>(
  {
    _id: { type: String, required: true },
    parent: { type: String, required: true },
    at: { type: Date, required: true },
    counts: { type: Schema.Types.Mixed, required: true },
  },
  { collection: 'webhook_run_hour_counts', versionKey: false, minimize: false },
);
schema.index({ parent: 1 });

export function runHourCountModel(conn: Connection) {
  return conn.models.WebhookRunHourCount ?? conn.model<RunHourCountDoc>('WebhookRunHourCount', schema);
}
