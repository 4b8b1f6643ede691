import { Connection, Schema } from 'mongoose';

/**
 * One claim of one occurrence. `_id` = `<schedule>:<base ISO>:<attempt>`, where base is the
 * schedule's `next_due_at` when it was claimed: inserting it is what decides who holds the
 * occurrence (one winner per attempt). A later attempt exists only once the earlier claim ended.
 */
export interface ScheduleClaimDoc {
  _id: string;
  schedule_id: string;
  budget_id: string;
  base_due_at: Date;
  attempt: number;
  /** The occurrence handed out (catch-up: the latest due one at claim time). */
  due_at: Date;
  skipped: number;
  claim_token: string;
  claimed_at: Date;
  lease_expires_at: Date;
  /**
   * false on claims of releases that had a due queue, absent on older ones (whose due-queue entry
   * was swapped for a held entry keyed at expiry). Nothing reads it since the due queue went (the
   * schedule document is its own entry: docs/schedules.md#due-queue); kept so claims stay one shape.
   */
  held_entry?: boolean;
}

const schema = new Schema<ScheduleClaimDoc>(
  {
    _id: { type: String, required: true },
    schedule_id: { type: String, required: true },
    budget_id: { type: String, required: true },
    base_due_at: { type: Date, required: true },
    attempt: { type: Number, required: true },
    due_at: { type: Date, required: true },
    skipped: { type: Number, required: true },
    claim_token: { type: String, required: true, unique: true },
    claimed_at: { type: Date, required: true },
    lease_expires_at: { type: Date, required: true },
    held_entry: { type: Boolean },
  },
  { collection: 'schedule_claims', versionKey: false },
);
schema.index({ schedule_id: 1, base_due_at: 1, attempt: -1 });

export function scheduleClaimModel(conn: Connection) {
  return conn.models.ScheduleClaim ?? conn.model<ScheduleClaimDoc>('ScheduleClaim', schema);
}
