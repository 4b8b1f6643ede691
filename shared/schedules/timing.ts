import { Cron } from 'croner';

/**
 * When a schedule's occurrences fall. Pure: every function takes the clock as an argument.
 *
 * - `cron`: five fields (minute precision, no seconds field), evaluated in `timezone` by croner,
 *   which handles DST: a wall-clock time that does not exist (spring forward) fires at the first
 *   instant after the gap; a wall-clock time that happens twice (fall back) fires once, on its
 *   first pass; patterns with a wildcard hour fire on every real pass of the repeated hour.
 * - `interval`: every `every_seconds` of real time from `anchor_at`; the time zone plays no part.
 */
export type ScheduleTiming =
  | { kind: 'cron'; cron: string; timezone: string }
  | { kind: 'interval'; every_seconds: number; anchor_at: Date; timezone: string };

/** The timing fields of a schedule document as a ScheduleTiming. */
export function timingOf(s: {
  kind: 'cron' | 'interval';
  cron: string | null;
  every_seconds: number | null;
  anchor_at: Date | null;
  timezone: string;
}): ScheduleTiming {
  return s.kind === 'cron'
    ? { kind: 'cron', cron: s.cron!, timezone: s.timezone }
    : { kind: 'interval', every_seconds: s.every_seconds!, anchor_at: s.anchor_at!, timezone: s.timezone };
}

export const MIN_EVERY_SECONDS = 60;
export const MAX_EVERY_SECONDS = 366 * 86_400;
/** Catch-up counts missed occurrences up to this many (each costs a cron evaluation); beyond it the count says "at least". */
export const MAX_COUNTED_SKIPS = 1000;

function cronOf(t: { cron: string; timezone: string }): Cron {
  return new Cron(t.cron, { timezone: t.timezone, paused: true, mode: '5-part' });
}

/** A problem with a timing definition, or null when it is usable. */
export function timingProblem(t: {
  cron?: string | null;
  every_seconds?: number | null;
  timezone: string;
}): string | null {
  if (!isTimeZone(t.timezone)) return `unknown time zone: ${t.timezone} (use an IANA name such as Europe/Berlin)`;
  if ((t.cron == null) === (t.every_seconds == null)) return 'give exactly one of a cron expression or an interval';
  if (t.cron != null) {
    if (t.cron.trim().split(/\s+/).length !== 5)
      return 'a cron expression has five fields (minute hour day-of-month month day-of-week); seconds are not supported';
    try {
      if (cronOf({ cron: t.cron, timezone: t.timezone }).nextRun(new Date()) === null)
        return 'the cron expression never fires';
    } catch (err) {
      return `invalid cron expression: ${(err as Error).message}`;
    }
    return null;
  }
  const every = t.every_seconds!;
  if (!Number.isInteger(every) || every < MIN_EVERY_SECONDS || every > MAX_EVERY_SECONDS) {
    return `an interval is a whole number of seconds between ${MIN_EVERY_SECONDS} and ${MAX_EVERY_SECONDS}`;
  }
  return null;
}

export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The first occurrence strictly after `after`, or null when there is none. */
export function nextOccurrence(t: ScheduleTiming, after: Date): Date | null {
  if (t.kind === 'interval') {
    const every = t.every_seconds * 1000;
    const anchor = t.anchor_at.getTime();
    if (after.getTime() < anchor) return new Date(anchor);
    const k = Math.floor((after.getTime() - anchor) / every) + 1;
    return new Date(anchor + k * every);
  }
  return cronOf(t).nextRun(after);
}

export interface DueOccurrence {
  /** The occurrence to run now: the latest one at or before `now` (catch-up coalesces). */
  due_at: Date;
  /** Occurrences between `next_due_at` and `due_at` that are folded into this one. */
  skipped: number;
  /** True when `skipped` stopped counting at MAX_COUNTED_SKIPS. */
  skipped_at_least: boolean;
}

/**
 * Catch-up policy: when nobody ran a schedule for a while, the missed occurrences are coalesced
 * into the latest one that is due; the earlier ones are counted as skipped, never replayed.
 * Null when `nextDueAt` is still in the future.
 */
export function dueOccurrence(t: ScheduleTiming, nextDueAt: Date, now: Date): DueOccurrence | null {
  if (nextDueAt.getTime() > now.getTime()) return null;
  if (t.kind === 'interval') {
    const every = t.every_seconds * 1000;
    const skipped = Math.floor((now.getTime() - nextDueAt.getTime()) / every);
    return { due_at: new Date(nextDueAt.getTime() + skipped * every), skipped, skipped_at_least: false };
  }
  const cron = cronOf(t);
  let due = nextDueAt;
  let skipped = 0;
  for (;;) {
    const next = cron.nextRun(due);
    if (!next || next.getTime() > now.getTime()) return { due_at: due, skipped, skipped_at_least: false };
    if (skipped >= MAX_COUNTED_SKIPS) {
      // Far behind: jump to the latest occurrence at or before now without counting the rest.
      const latest = cron.previousRuns(1, new Date(now.getTime() + 1))[0] ?? next;
      return { due_at: latest, skipped, skipped_at_least: true };
    }
    due = next;
    skipped += 1;
  }
}
