import { ids } from '../platform/ids/index';
import type { Schedule } from './repository';
import { nextOccurrence, type ScheduleTiming, timingProblem } from './timing';

export interface NewScheduleInput {
  budgetId: string;
  workspaceId: string;
  workflowId: string;
  cron?: string | null;
  everySeconds?: number | null;
  timezone: string;
  /** Interval schedules: the first occurrence (default: now, so the first run is due at once). */
  startAt?: Date;
}

/**
 * A new schedule document, or the reason the timing is unusable. Cron schedules are first due at
 * the next match after `now`; interval schedules at `startAt` (default now), then every interval.
 */
export function buildSchedule(i: NewScheduleInput, now: Date): { schedule: Schedule } | { problem: string } {
  const problem = timingProblem({ cron: i.cron, every_seconds: i.everySeconds, timezone: i.timezone });
  if (problem) return { problem };
  const anchor = i.startAt ?? now;
  const timing: ScheduleTiming =
    i.cron != null
      ? { kind: 'cron', cron: i.cron.trim().replace(/\s+/g, ' '), timezone: i.timezone }
      : { kind: 'interval', every_seconds: i.everySeconds!, anchor_at: anchor, timezone: i.timezone };
  const first = timing.kind === 'cron' ? nextOccurrence(timing, now) : anchor;
  if (!first) return { problem: 'the cron expression never fires' };
  return {
    schedule: {
      _id: ids.schedule(),
      budget_id: i.budgetId,
      workspace_id: i.workspaceId,
      workflow_id: i.workflowId,
      kind: timing.kind,
      cron: timing.kind === 'cron' ? timing.cron : null,
      every_seconds: timing.kind === 'interval' ? timing.every_seconds : null,
      anchor_at: timing.kind === 'interval' ? timing.anchor_at : null,
      timezone: i.timezone,
      next_due_at: first,
      paused: false,
      paused_at: null,
      last_run_at: null,
      last_outcome: null,
      last_due_at: null,
      last_external_run_id: null,
      last_note: null,
      advance_count: 0,
      created_at: now,
      updated_at: now,
    },
  };
}

/** Resuming does not replay the paused period: the next occurrence strictly after now. */
export function resumeNextDue(s: Schedule, timing: ScheduleTiming, now: Date): Date {
  return s.next_due_at.getTime() > now.getTime() ? s.next_due_at : (nextOccurrence(timing, now) ?? s.next_due_at);
}
