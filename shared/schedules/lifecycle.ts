import { resumeNextDue } from './new-schedule';
import { type Schedule, type ScheduleRepository, timingOf } from './repository';

/**
 * Pauses a schedule: from its answer on, due reads leave it out and no claim takes it (a claim
 * already held runs out or ends as usual, and its advance is recorded).
 */
export async function pauseSchedule(repo: ScheduleRepository, s: Schedule, now: Date): Promise<Schedule> {
  if (s.paused) return s;
  await repo.pause(s, now);
  return (await repo.get(s._id)) ?? s;
}

/**
 * Resumes a schedule at its next occurrence after `now` (the paused period is not replayed). An
 * occurrence still in the future is kept as it was.
 */
export async function resumeSchedule(repo: ScheduleRepository, s: Schedule, now: Date): Promise<Schedule> {
  if (!s.paused) return s;
  await repo.resume(s._id, now, resumeNextDue(s, timingOf(s), now));
  return (await repo.get(s._id)) ?? s;
}
