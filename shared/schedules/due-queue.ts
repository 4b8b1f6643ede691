import type { DueEntryReason, ScheduleDueDoc } from '../db/models/schedule-due';
import type { Schedule } from './repository';
import { dueOccurrence, type ScheduleTiming } from './timing';

export type DueEntry = ScheduleDueDoc;
export type { DueEntryReason };

/** Budget ids hold no ':', so `<budget>:` prefixes exactly that budget's entries. */
export const dueQueueKey = (budgetId: string, base: Date, scheduleId: string) => `${budgetId}:${base.toISOString()}:${scheduleId}`;

/** The `_id` range of a budget's entries whose base occurrence is at or before `now` (';' sorts right after ':'). */
export function dueKeyRange(budgetId: string, now: Date): { $gte: string; $lt: string } {
  return { $gte: `${budgetId}:`, $lt: `${budgetId}:${now.toISOString()};` };
}

export function entryTiming(e: Pick<DueEntry, 'kind' | 'cron' | 'every_seconds' | 'anchor_at' | 'timezone'>): ScheduleTiming {
  return e.kind === 'cron'
    ? { kind: 'cron', cron: e.cron!, timezone: e.timezone }
    : { kind: 'interval', every_seconds: e.every_seconds!, anchor_at: e.anchor_at!, timezone: e.timezone };
}

/** The entry of a schedule's current occurrence, with the catch-up as of `asOf`. */
export function dueEntry(s: Schedule, reason: DueEntryReason, asOf: Date): DueEntry {
  const base = s.next_due_at;
  const occ = dueOccurrence(entryTiming(s), base, asOf);
  return {
    _id: dueQueueKey(s.budget_id, base, s._id),
    budget_id: s.budget_id,
    schedule_id: s._id,
    workflow_id: s.workflow_id,
    base_due_at: base,
    kind: s.kind,
    cron: s.cron,
    every_seconds: s.every_seconds,
    anchor_at: s.anchor_at,
    timezone: s.timezone,
    due_at: occ?.due_at ?? base,
    skipped: occ?.skipped ?? 0,
    skipped_at_least: occ?.skipped_at_least ?? false,
    as_of: asOf,
    reason,
  };
}

export interface QueuedOccurrence {
  entry: DueEntry;
  /** The coalesced occurrence at `now` (catch-up policy: the latest due one). */
  due_at: Date;
  skipped: number;
  skipped_at_least: boolean;
}

/** Due entries with their occurrence at `now`, oldest coalesced `due_at` first, then schedule id. */
export function orderQueue(entries: DueEntry[], now: Date): QueuedOccurrence[] {
  const out: QueuedOccurrence[] = [];
  for (const entry of entries) {
    const occ = dueOccurrence(entryTiming(entry), entry.base_due_at, now);
    if (occ) out.push({ entry, ...occ });
  }
  return out.sort((a, b) => a.due_at.getTime() - b.due_at.getTime() || (a.entry.schedule_id < b.entry.schedule_id ? -1 : a.entry.schedule_id > b.entry.schedule_id ? 1 : 0));
}
