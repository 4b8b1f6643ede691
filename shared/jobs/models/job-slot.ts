import { Connection, Schema } from 'mongoose';

/**
 * One taken slot of a job: `_id` is `<jobId>:<n>` for n in [0, slots). Inserting it is what
 * takes the slot (insertOnce); deleting it returns the slot to the pool. Whatever told the
 * reserver to try n (the counter, a free-slot row), this unique key is what decides.
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

/**
 * The job's next never-used slot number (`_id` = job id). Advanced by one per reservation; a
 * hint only, since FerretDB applies a filtered update without isolation: two reservers may be
 * told the same n, and the slot's unique key gives it to one of them.
 */
export interface JobSlotCounterDoc {
  _id: string;
  next: number;
}

const counterSchema = new Schema<JobSlotCounterDoc>(
  {
    _id: { type: String, required: true },
    next: { type: Number, required: true },
  },
  { collection: 'job_slot_counters', versionKey: false },
);

export function jobSlotCounterModel(conn: Connection) {
  return conn.models.JobSlotCounter ?? conn.model<JobSlotCounterDoc>('JobSlotCounter', counterSchema);
}

/**
 * A slot returned to the pool (expired, cancelled or rejected reservation), written after its
 * slot row was deleted: `_id` `<jobId>:<n>:<reservation that freed it>`, so a repeat of the same
 * release writes it once and a stale reader's delete never hits a later release's row. Also a
 * hint: a reserver tries the slot's key and drops the row whether it won or found it taken.
 */
export interface JobFreeSlotDoc {
  _id: string;
  job_id: string;
  n: number;
  freed_at: Date;
}

const freeSchema = new Schema<JobFreeSlotDoc>(
  {
    _id: { type: String, required: true },
    job_id: { type: String, required: true },
    n: { type: Number, required: true },
    freed_at: { type: Date, required: true },
  },
  { collection: 'job_free_slots', versionKey: false },
);
freeSchema.index({ job_id: 1 });

export function jobFreeSlotModel(conn: Connection) {
  return conn.models.JobFreeSlot ?? conn.model<JobFreeSlotDoc>('JobFreeSlot', freeSchema);
}
