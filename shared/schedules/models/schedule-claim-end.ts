import { Connection, Schema } from 'mongoose';
import type { ScheduleAdvanceDoc } from './schedule-advance';

export type ClaimEndKind = 'released' | 'advanced' | 'expired';

/**
 * How a claim ended. `_id` is the claim's id: the first insert wins, so a release, an advance and
 * the lease's expiry can never all apply to the same claim. An `advanced` end carries the advance
 * record: a later attempt of an occurrence exists only after the earlier one ended otherwise, so
 * at most one claim per occurrence ends `advanced`, and this insert is the advance's decision too.
 * Ends written by older releases have no `advance`; theirs is in `schedule_advances`.
 */
export interface ScheduleClaimEndDoc {
  _id: string;
  schedule_id: string;
  kind: ClaimEndKind;
  at: Date;
  reason: string | null;
  note: string | null;
  advance?: ScheduleAdvanceDoc;
}

const schema = new Schema<ScheduleClaimEndDoc>(
  {
    _id: { type: String, required: true },
    schedule_id: { type: String, required: true },
    kind: { type: String, required: true },
    at: { type: Date, required: true },
    reason: { type: String, default: null },
    note: { type: String, default: null },
    advance: { type: Schema.Types.Mixed },
  },
  { collection: 'schedule_claim_ends', versionKey: false },
);
schema.index({ schedule_id: 1, kind: 1, at: -1 });

export function scheduleClaimEndModel(conn: Connection) {
  return conn.models.ScheduleClaimEnd ?? conn.model<ScheduleClaimEndDoc>('ScheduleClaimEnd', schema);
}
