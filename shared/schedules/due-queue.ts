import type { Schedule } from './repository';
import { dueOccurrence, timingOf } from './timing';

/**
 * A schedule's current occurrence as the due read found it: the schedule document is its own
 * queue entry (its `next_due_at` is the occurrence; the advance's guarded apply moves it), so
 * there is nothing to keep beside it (docs/schedules.md#due-queue).
 */
export interface QueuedOccurrence {
  schedule: Schedule;
  /** occurrenceKey of the schedule's current occurrence, made once per read (claimers look it up per claim). */
  key: string;
  /** The coalesced occurrence at `now` (catch-up policy: the latest due one). */
  due_at: Date;
  skipped: number;
  skipped_at_least: boolean;
}

/** One occurrence of a schedule (its `next_due_at` when read), as ClaimMemory keys it. */
export function occurrenceKey(scheduleId: string, base: Date): string {
  return `${scheduleId}|${base.getTime()}`;
}

/** Due schedules with their occurrence at `now`, oldest coalesced `due_at` first, then schedule id. */
export function orderQueue(schedules: Schedule[], now: Date): QueuedOccurrence[] {
  const out: QueuedOccurrence[] = [];
  for (const schedule of schedules) {
    const occ = dueOccurrence(timingOf(schedule), schedule.next_due_at, now);
    if (occ) out.push({ schedule, key: occurrenceKey(schedule._id, schedule.next_due_at), ...occ });
  }
  return out.sort(
    (a, b) =>
      a.due_at.getTime() - b.due_at.getTime() ||
      (a.schedule._id < b.schedule._id ? -1 : a.schedule._id > b.schedule._id ? 1 : 0),
  );
}

/** Losers of the oldest occurrence spread over the first CLAIM_PAGE of the queue. */
const CLAIM_PAGE = 50;

/** The n-th claimer in flight starts at the n-th oldest occurrence (a lone claimer takes the oldest), wraps around the first page, then goes on in order. */
export function spread(queue: QueuedOccurrence[], rank: number): QueuedOccurrence[] {
  const head = queue.slice(0, CLAIM_PAGE);
  const k = head.length > 0 ? rank % head.length : 0;
  return [...head.slice(k), ...head.slice(0, k), ...queue.slice(CLAIM_PAGE)];
}
