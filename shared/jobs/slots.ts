import type { JobDoc } from './models/job';
import type { JobRepository, Reservation } from './repository';

/** Returned slots read at once; racers try them in random order so they spread out. */
const FREE_ROWS = 8;
const FREE_ROUNDS = 4;

/**
 * Takes a free slot of the job for a reservation in constant time, whatever the job's size:
 * the next never-used number from the job's counter, else a slot some reservation returned.
 * Either only names a candidate; the slot row's unique key `<jobId>:<n>` gives each slot to
 * exactly one reserver. Null when the job is full.
 */
export async function takeFreeSlot(
  jobs: JobRepository,
  job: Pick<JobDoc, '_id' | 'slots'>,
  reservationId: string,
  now: Date,
): Promise<number | null> {
  // Each failed try uses up a number (a racer took it, or a job from before counters has it
  // taken), so this ends by the job's size at worst; one try is the common case.
  for (let tries = 0; tries <= 2 * job.slots; tries++) {
    const n = await jobs.nextNeverUsedSlot(job._id, job.slots);
    if (n === null) break;
    if (await jobs.takeSlot(job._id, n, reservationId, now)) return n;
  }
  for (let round = 0; round < FREE_ROUNDS; round++) {
    const rows = await jobs.freeSlotRows(job._id, FREE_ROWS);
    if (rows.length === 0) return null;
    for (let i = rows.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [rows[i], rows[j]] = [rows[j], rows[i]];
    }
    for (const row of rows) {
      const won = await jobs.takeSlot(job._id, row.n, reservationId, now);
      // Won or found taken again: either way the row has said what it had to say.
      await jobs.dropFreeSlotRow(row._id);
      if (won) return row.n;
    }
  }
  return null;
}

/**
 * Ends a reservation as expired (or cancelled) unless a completion already decided it: true when
 * it is (now or earlier) expired/cancelled. Its slot returns to the pool. Safe to repeat.
 */
export async function endUncompleted(
  jobs: JobRepository,
  r: Reservation,
  outcome: 'expired' | 'cancelled',
  now: Date,
): Promise<boolean> {
  const won = await jobs.decideOutcome(r._id, outcome, null, now);
  const earlier = won ? null : await jobs.outcome(r._id);
  const decided = won ? outcome : earlier?.outcome;
  if (decided === undefined) return false;
  if (decided === 'completed') {
    // A completion that stopped between its outcome and its status: the sweep would meet it forever.
    if (r.status === 'active')
      await jobs.endReservation(r._id, 'completed', earlier!.completion_id, earlier!.decided_at);
    return false;
  }
  // The slot first: whoever sees the reservation ended then also finds its slot back in the pool.
  const slot = r.slot ?? (await jobs.getReservation(r._id))?.slot ?? null;
  if (slot !== null) await jobs.freeSlot(r.job_id, slot, r._id, now);
  await jobs.endReservation(r._id, decided, null, now);
  return true;
}

/**
 * Ends every reservation past its window, a batch at a time (of one job when `jobId` is given):
 * how many it ended. Expiry is decided by the outcome row, so a completion racing it still wins
 * or loses exactly once.
 */
export async function expireDue(
  jobs: JobRepository,
  now: Date,
  limit: number,
  jobId?: string,
): Promise<{ seen: number; expired: number }> {
  const due = await jobs.dueReservations(now, limit, jobId);
  const ended = await Promise.all(due.map((r) => endUncompleted(jobs, r, 'expired', now)));
  return { seen: due.length, expired: ended.filter(Boolean).length };
}
