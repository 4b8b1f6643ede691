import { Connection, Schema } from 'mongoose';
import type { ScheduleOutcome } from './workflow-schedule';

/**
 * The history of a schedule: one record per handled occurrence. `_id` = `<schedule>:<base ISO>`,
 * so an occurrence is advanced at most once whoever asks, however often.
 */
export interface ScheduleAdvanceDoc {
  _id: string;
  schedule_id: string;
  budget_id: string;
  claim_id: string;
  claim_token: string;
  base_due_at: Date;
  due_at: Date;
  skipped: number;
  next_due_at: Date;
  /** The schedule's advance_count once this advance is applied (set, never incremented: a repeat is harmless). */
  seq: number;
  outcome: ScheduleOutcome | null;
  external_run_id: string | null;
  note: string | null;
  advanced_at: Date;
}

const schema = new Schema<ScheduleAdvanceDoc>(
  {
    _id: { type: String, required: true },
    schedule_id: { type: String, required: true },
    budget_id: { type: String, required: true },
    claim_id: { type: String, required: true },
    claim_token: { type: String, required: true },
    base_due_at: { type: Date, required: true },
    due_at: { type: Date, required: true },
    skipped: { type: Number, required: true },
    next_due_at: { type: Date, required: true },
    seq: { type: Number, required: true },
    outcome: { type: String, default: null },
    external_run_id: { type: String, default: null },
    note: { type: String, default: null },
    advanced_at: { type: Date, required: true },
  },
  { collection: 'schedule_advances', versionKey: false },
);
schema.index({ schedule_id: 1, advanced_at: -1 });

export function scheduleAdvanceModel(conn: Connection) {
  return conn.models.ScheduleAdvance ?? conn.model<ScheduleAdvanceDoc>('ScheduleAdvance', schema);
}
