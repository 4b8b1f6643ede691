import type { DueEntryReason, ScheduleDueDoc } from '../db/models/schedule-due';
import type { Schedule } from './repository';
import { dueOccurrence, type ScheduleTiming } from './timing';

export type DueEntry = ScheduleDueDoc;
export type { DueEntryReason };

/** Budget ids hold no ':', so `<budget>:` prefixes exactly that budget's entries. */
export const dueQueueKey = (budgetId: string, base: Date, scheduleId: string) => `${budgetId}:${base.toISOString()}:${scheduleId}`;

/**
 * The entry of a claimed occurrence, keyed at its lease's expiry instead of its base occurrence:
 * out of the due range while the lease holds, in it from the instant the lease runs out, with
 * nobody calling. One per claim: the key ends with the random part of the claim's token, so two
 * claimers racing in the same millisecond never share one (':' sorts before ';', so the range
 * below includes it).
 */
export const heldQueueKey = (c: { budget_id: string; lease_expires_at: Date; schedule_id: string; claim_token: string }) =>
  `${c.budget_id}:${c.lease_expires_at.toISOString()}:${c.schedule_id}:${c.claim_token.slice(c.claim_token.lastIndexOf('.') + 1)}`;

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
    schedule: s,
  };
}

export interface QueuedOccurrence {
  entry: DueEntry;
  /** The coalesced occurrence at `now` (catch-up policy: the latest due one). */
  due_at: Date;
  skipped: number;
  skipped_at_least: boolean;
}

/**
 * Due entries with their occurrence at `now`, oldest coalesced `due_at` first, then schedule id.
 * An occurrence with more than one entry (its base entry and a held one whose lease ran out, or
 * held ones of successive claims) is listed once.
 */
export function orderQueue(entries: DueEntry[], now: Date): QueuedOccurrence[] {
  const out: QueuedOccurrence[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const occurrence = `${entry.schedule_id}|${entry.base_due_at.getTime()}`;
    if (seen.has(occurrence)) continue;
    seen.add(occurrence);
    const occ = dueOccurrence(entryTiming(entry), entry.base_due_at, now);
    if (occ) out.push({ entry, ...occ });
  }
  return out.sort((a, b) => a.due_at.getTime() - b.due_at.getTime() || (a.entry.schedule_id < b.entry.schedule_id ? -1 : a.entry.schedule_id > b.entry.schedule_id ? 1 : 0));
}
