import { Connection, Schema } from 'mongoose';

export type ClaimEndKind = 'released' | 'advanced' | 'expired';

/**
 * How a claim ended. `_id` is the claim's id: the first insert wins, so a release, an advance and
 * the lease's expiry can never all apply to the same claim.
 */
export interface ScheduleClaimEndDoc {
  _id: string;
  schedule_id: string;
  kind: ClaimEndKind;
  at: Date;
  reason: string | null;
  note: string | null;
}

const schema = new Schema<ScheduleClaimEndDoc>(
  {
    _id: { type: String, required: true },
    schedule_id: { type: String, required: true },
    kind: { type: String, required: true },
    at: { type: Date, required: true },
    reason: { type: String, default: null },
    note: { type: String, default: null },
  },
  { collection: 'schedule_claim_ends', versionKey: false },
);

export function scheduleClaimEndModel(conn: Connection) {
  return conn.models.ScheduleClaimEnd ?? conn.model<ScheduleClaimEndDoc>('ScheduleClaimEnd', schema);
}
