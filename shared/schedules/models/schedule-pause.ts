import { Connection, Schema } from 'mongoose';

/**
 * A paused schedule: the row exists while it is paused (`_id` = schedule id; a pause is its
 * insert, a resume its delete). It lives apart from the schedule document because an advance
 * rewrites that document as it read it on FerretDB, which could undo a flag set beside it.
 */
export interface SchedulePauseDoc {
  _id: string;
  budget_id: string;
  paused_at: Date;
}

const schema = new Schema<SchedulePauseDoc>(
  {
    _id: { type: String, required: true },
    budget_id: { type: String, required: true },
    paused_at: { type: Date, required: true },
  },
  { collection: 'schedule_pauses', versionKey: false },
);
// A budget's due read leaves out its paused schedules.
schema.index({ budget_id: 1 });

export function schedulePauseModel(conn: Connection) {
  return conn.models.SchedulePause ?? conn.model<SchedulePauseDoc>('SchedulePause', schema);
}
