import { resumeNextDue } from './new-schedule';
import { type Schedule, type ScheduleRepository, timingOf } from './repository';

/** Pauses a schedule: due reads leave it out from then on (a claim already held runs out or ends as usual). */
export async function pauseSchedule(repo: ScheduleRepository, s: Schedule, now: Date): Promise<Schedule> {
  if (s.paused) return s;
  return (await repo.setPaused(s._id, true, now)) ?? s;
}

/**
 * Resumes a schedule at its next occurrence after `now` (the paused period is not replayed). An
 * occurrence still in the future is kept as it was.
 */
export async function resumeSchedule(repo: ScheduleRepository, s: Schedule, now: Date): Promise<Schedule> {
  if (!s.paused) return s;
  return (await repo.setPaused(s._id, false, now, resumeNextDue(s, timingOf(s), now))) ?? s;
}
