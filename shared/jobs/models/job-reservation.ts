import { Connection, Schema } from 'mongoose';

export type ReservationStatus = 'active' | 'completed' | 'expired' | 'cancelled';

/**
 * A wallet's hold on one slot of a job. `active_key` (`<jobId>:<wallet>:<generation>`, unique)
 * makes a wallet's n-th reservation of a job exist once, so two racing reserves by one wallet
 * get one reservation. `status` is written by whoever won the reservation's outcome
 * (job_reservation_outcomes); the outcome row is the truth when the two disagree after a crash.
 */
export interface JobReservationDoc {
  _id: string;
  job_id: string;
  wallet: string;
  generation: number;
  active_key: string;
  slot: number | null;
  status: ReservationStatus;
  expires_at: Date;
  created_at: Date;
  ended_at: Date | null;
  completion_id: string | null;
}

const schema = new Schema<JobReservationDoc>(
  {
    _id: { type: String, required: true },
    job_id: { type: String, required: true },
    wallet: { type: String, required: true },
    generation: { type: Number, required: true },
    active_key: { type: String, required: true, unique: true },
    slot: { type: Number, default: null },
    status: { type: String, required: true },
    expires_at: { type: Date, required: true },
    created_at: { type: Date, required: true },
    ended_at: { type: Date, default: null },
    completion_id: { type: String, default: null },
  },
  { collection: 'job_reservations', versionKey: false },
);
schema.index({ job_id: 1, wallet: 1, generation: -1 });
// The expiry sweep's and a full job's reclaim: active reservations (FerretDB pushes down the equality).
schema.index({ status: 1, expires_at: 1 });
schema.index({ wallet: 1, status: 1 });

export function jobReservationModel(conn: Connection) {
  return conn.models.JobReservation ?? conn.model<JobReservationDoc>('JobReservation', schema);
}

/** How a reservation ended, decided once: the first insert under the reservation id wins. */
export interface JobReservationOutcomeDoc {
  _id: string;
  outcome: 'completed' | 'expired' | 'cancelled';
  completion_id: string | null;
  decided_at: Date;
}

const outcomeSchema = new Schema<JobReservationOutcomeDoc>(
  {
    _id: { type: String, required: true },
    outcome: { type: String, required: true },
    completion_id: { type: String, default: null },
    decided_at: { type: Date, required: true },
  },
  { collection: 'job_reservation_outcomes', versionKey: false },
);

export function jobReservationOutcomeModel(conn: Connection) {
  return (
    conn.models.JobReservationOutcome ?? conn.model<JobReservationOutcomeDoc>('JobReservationOutcome', outcomeSchema)
  );
}
