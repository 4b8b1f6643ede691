import type { JobDoc } from '../db/models/job';
import type { JobRepository, Reservation } from './repository';

const ROUNDS = 5;
/** Blind tries at random slot numbers before reading which are taken (cheap while a job is mostly free). */
const PROBES = 2;

/**
 * Takes a free slot of the job for a reservation: a couple of inserts at random numbers, then
 * reads which numbers are taken and tries the free ones in random order (racing reservers
 * spread out); the unique `_id` `<jobId>:<n>` lets exactly one of them have each slot. Null
 * when the job is full.
 */
export async function takeFreeSlot(jobs: JobRepository, job: Pick<JobDoc, '_id' | 'slots'>, reservationId: string, now: Date): Promise<number | null> {
  for (let probe = 0; probe < PROBES; probe++) {
    const n = Math.floor(Math.random() * job.slots);
    if (await jobs.takeSlot(job._id, n, reservationId, now)) return n;
  }
  for (let round = 0; round < ROUNDS; round++) {
    const taken = new Set(await jobs.takenSlotNumbers(job._id));
    const free = Array.from({ length: job.slots }, (_, n) => n).filter((n) => !taken.has(n));
    if (free.length === 0) return null;
    for (let i = free.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [free[i], free[j]] = [free[j], free[i]];
    }
    for (const n of free) if (await jobs.takeSlot(job._id, n, reservationId, now)) return n;
  }
  return null;
}

/**
 * Ends a reservation as expired (or cancelled) unless a completion already decided it: true when
 * it is (now or earlier) expired/cancelled. Its slot returns to the pool. Safe to repeat.
 */
export async function endUncompleted(jobs: JobRepository, r: Reservation, outcome: 'expired' | 'cancelled', now: Date): Promise<boolean> {
  const won = await jobs.decideOutcome(r._id, outcome, null, now);
  const decided = won ? outcome : (await jobs.outcome(r._id))?.outcome;
  if (decided === 'completed' || decided === undefined) return false;
  // The slot first: whoever sees the reservation ended then also finds its slot back in the pool.
  const slot = r.slot ?? (await jobs.getReservation(r._id))?.slot ?? null;
  if (slot !== null) await jobs.freeSlot(r.job_id, slot, r._id);
  await jobs.endReservation(r._id, decided, null, now);
  return true;
}
