import { claimStatus } from './claim-rules';
import type { DueEntry, DueEntryReason } from './due-queue';
import { resumeNextDue } from './new-schedule';
import { timingOf, type Schedule, type ScheduleRepository } from './repository';

/** Pauses a schedule: its occurrence leaves the due queue (a claim already held runs out or ends as usual). */
export async function pauseSchedule(repo: ScheduleRepository, s: Schedule, now: Date): Promise<Schedule> {
  if (s.paused) return s;
  const paused = (await repo.setPaused(s._id, true, now)) ?? s;
  // An advance applied since `s` was read queued its next occurrence: that entry goes too.
  const moved = paused.next_due_at.getTime() !== s.next_due_at.getTime();
  await Promise.all([repo.dequeue(s.budget_id, s.next_due_at, s._id), moved ? repo.dequeue(s.budget_id, paused.next_due_at, s._id) : undefined]);
  return paused;
}

/**
 * Resumes a schedule at its next occurrence after `now` (the paused period is not replayed) and
 * queues it. An occurrence still in the future is kept as it was.
 */
export async function resumeSchedule(repo: ScheduleRepository, s: Schedule, now: Date): Promise<Schedule> {
  if (!s.paused) return s;
  const resumed = await repo.setPaused(s._id, false, now, resumeNextDue(s, timingOf(s), now));
  if (!resumed) return s;
  await repo.enqueue(resumed, 'resumed', now);
  return resumed;
}

/**
 * Puts the schedule's current occurrence back in the due queue with the catch-up as of `asOf`,
 * unless it is paused or a claim holds or advanced that occurrence. Used after a release, an
 * expiry (with the lease workflow's time) and on a repeated advance or release.
 */
export async function requeueIfOpen(repo: ScheduleRepository, s: Schedule, reason: DueEntryReason, asOf: Date): Promise<DueEntry | null> {
  if (s.paused) return null;
  const latest = await repo.latestClaim(s._id, s.next_due_at);
  if (latest) {
    const status = claimStatus(latest, asOf);
    if (status === 'active' || status === 'advanced') return null;
  }
  return repo.enqueue(s, reason, asOf);
}
