import { Connection, Schema } from 'mongoose';

/**
 * One taken slot of a job: `_id` is `<jobId>:<n>` for n in [0, slots). Inserting it is what
 * takes the slot (insertOnce); deleting it returns the slot to the pool.
 */
export interface JobSlotDoc {
  _id: string;
  job_id: string;
  n: number;
  reservation_id: string;
  taken_at: Date;
}

const schema = new Schema<JobSlotDoc>(
  {
    _id: { type: String, required: true },
    job_id: { type: String, required: true },
    n: { type: Number, required: true },
    reservation_id: { type: String, required: true },
    taken_at: { type: Date, required: true },
  },
  { collection: 'job_slots', versionKey: false },
);
schema.index({ job_id: 1 });

export function jobSlotModel(conn: Connection) {
  return conn.models.JobSlot ?? conn.model<JobSlotDoc>('JobSlot', schema);
}
