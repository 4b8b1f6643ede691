import { Connection, Schema } from 'mongoose';

export type ScheduleOutcome = 'success' | 'failed' | 'skipped';

/**
 * A workflow schedule of one budget. `next_due_at` is the first occurrence not yet handled;
 * occurrences are claimed and advanced through inserts in the claim, claim-end and advance
 * collections, and this document only records their effect.
 */
export interface WorkflowScheduleDoc {
  _id: string;
  budget_id: string;
  workspace_id: string;
  workflow_id: string;
  kind: 'cron' | 'interval';
  cron: string | null;
  every_seconds: number | null;
  /** Interval schedules: occurrences fall at anchor_at + k × every_seconds. */
  anchor_at: Date | null;
  timezone: string;
  next_due_at: Date;
  paused: boolean;
  paused_at: Date | null;
  last_run_at: Date | null;
  last_outcome: ScheduleOutcome | null;
  last_due_at: Date | null;
  last_external_run_id: string | null;
  last_note: string | null;
  advance_count: number;
  created_at: Date;
  updated_at: Date;
}

const schema = new Schema<WorkflowScheduleDoc>(
  {
    _id: { type: String, required: true },
    budget_id: { type: String, required: true },
    workspace_id: { type: String, required: true },
    workflow_id: { type: String, required: true },
    kind: { type: String, required: true },
    cron: { type: String, default: null },
    every_seconds: { type: Number, default: null },
    anchor_at: { type: Date, default: null },
    timezone: { type: String, required: true },
    next_due_at: { type: Date, required: true },
    paused: { type: Boolean, required: true },
    paused_at: { type: Date, default: null },
    last_run_at: { type: Date, default: null },
    last_outcome: { type: String, default: null },
    last_due_at: { type: Date, default: null },
    last_external_run_id: { type: String, default: null },
    last_note: { type: String, default: null },
    advance_count: { type: Number, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'workflow_schedules', versionKey: false },
);
// The due queue of a budget, oldest first.
schema.index({ budget_id: 1, paused: 1, next_due_at: 1, _id: 1 });

export function workflowScheduleModel(conn: Connection) {
  return conn.models.WorkflowSchedule ?? conn.model<WorkflowScheduleDoc>('WorkflowSchedule', schema);
}
