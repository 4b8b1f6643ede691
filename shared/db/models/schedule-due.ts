import { Connection, Schema } from 'mongoose';
import type { WorkflowScheduleDoc } from './workflow-schedule';

export type DueEntryReason = 'scheduled' | 'released' | 'expired' | 'lease_start_failed' | 'resumed' | 'rebuilt';

/**
 * One schedule's unclaimed occurrence in its budget's due queue. `_id` =
 * `<budget>:<base ISO>:<schedule>`, where base is the schedule's `next_due_at`: one entry per
 * schedule and occurrence, so re-queueing is idempotent, and a budget's entries that are due are
 * one `_id` range (FerretDB serves `_id` reads without decoding every schedule document).
 * The entry carries the timing, so the queue can be ordered by the coalesced `due_at` without
 * reading the schedules. It is an index: claims, ends and advances stay the decisions, and readers
 * check an entry against them before handing it out.
 */
export interface ScheduleDueDoc {
  _id: string;
  budget_id: string;
  schedule_id: string;
  workflow_id: string;
  base_due_at: Date;
  kind: 'cron' | 'interval';
  cron: string | null;
  every_seconds: number | null;
  anchor_at: Date | null;
  timezone: string;
  /** The catch-up as of `as_of` (computed by whoever queued it; readers recompute with their clock). */
  due_at: Date;
  skipped: number;
  skipped_at_least: boolean;
  as_of: Date;
  reason: DueEntryReason;
  /**
   * The schedule as it stood when the entry was written. Every change of a schedule rewrites or
   * removes its entry (advance, pause, resume, delete), so a "next due" claim takes the occurrence
   * from it without reading the schedule. Absent on entries written before.
   */
  schedule?: WorkflowScheduleDoc;
}

const schema = new Schema<ScheduleDueDoc>(
  {
    _id: { type: String, required: true },
    budget_id: { type: String, required: true },
    schedule_id: { type: String, required: true },
    workflow_id: { type: String, required: true },
    base_due_at: { type: Date, required: true },
    kind: { type: String, required: true },
    cron: { type: String, default: null },
    every_seconds: { type: Number, default: null },
    anchor_at: { type: Date, default: null },
    timezone: { type: String, required: true },
    due_at: { type: Date, required: true },
    skipped: { type: Number, required: true },
    skipped_at_least: { type: Boolean, required: true },
    as_of: { type: Date, required: true },
    reason: { type: String, required: true },
    schedule: { type: Schema.Types.Mixed },
  },
  { collection: 'schedule_due', versionKey: false },
);

export function scheduleDueModel(conn: Connection) {
  return conn.models.ScheduleDue ?? conn.model<ScheduleDueDoc>('ScheduleDue', schema);
}
