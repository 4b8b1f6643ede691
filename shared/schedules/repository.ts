import { randomBytes } from 'node:crypto';
import { insertOnceGrouped, type Models } from '../db';
import type { ScheduleAdvanceDoc } from '../db/models/schedule-advance';
import type { ScheduleClaimDoc } from '../db/models/schedule-claim';
import type { ClaimEndKind, ScheduleClaimEndDoc } from '../db/models/schedule-claim-end';
import type { ScheduleOutcome, WorkflowScheduleDoc } from '../db/models/workflow-schedule';
import { dueEntry, dueKeyRange, dueQueueKey, heldQueueKey, type DueEntry, type DueEntryReason } from './due-queue';
import type { ScheduleTiming } from './timing';

export type Schedule = WorkflowScheduleDoc;
export type ScheduleClaim = ScheduleClaimDoc;
export type ScheduleClaimEnd = ScheduleClaimEndDoc;
export type ScheduleAdvance = ScheduleAdvanceDoc;

/** A claim with how it ended, if it did. */
export interface ClaimState {
  claim: ScheduleClaim;
  end: ScheduleClaimEnd | null;
}

export const claimId = (scheduleId: string, base: Date, attempt: number) => `${scheduleId}:${base.toISOString()}:${attempt}`;
export const occurrenceKey = (scheduleId: string, base: Date) => `${scheduleId}:${base.toISOString()}`;
export const newScheduleId = () => `sch_${randomBytes(12).toString('hex')}`;
/**
 * A claim token names its claim (`clm_<base64url claim id>.<random>`), so the claim is read by
 * `_id`; the random part is what makes it a secret. Tokens without the id part (issued before)
 * are looked up by value.
 */
export const newClaimToken = (id: string) => `clm_${Buffer.from(id).toString('base64url')}.${randomBytes(18).toString('base64url')}`;
export function claimIdOfToken(token: string): string | null {
  const m = /^clm_([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]+$/.exec(token);
  return m ? Buffer.from(m[1], 'base64url').toString('utf8') : null;
}
/** The occurrence key of a claim id (`<schedule>:<base ISO>:<attempt>` without the attempt). */
export function occurrenceKeyOfClaim(id: string): string | null {
  const m = /^(.+):\d+$/.exec(id);
  return m ? m[1] : null;
}
/** Claims from before issue 17's second part moved their occurrence to a held entry keyed at the lease's expiry. */
export const hasHeldEntry = (c: Pick<ScheduleClaim, 'held_entry'>) => c.held_entry !== false;
/** Probing attempts by `_id` beyond this many falls back to the (scanning) query. */
const MAX_PROBED_ATTEMPTS = 20;

export function timingOf(s: Pick<Schedule, 'kind' | 'cron' | 'every_seconds' | 'anchor_at' | 'timezone'>): ScheduleTiming {
  return s.kind === 'cron'
    ? { kind: 'cron', cron: s.cron!, timezone: s.timezone }
    : { kind: 'interval', every_seconds: s.every_seconds!, anchor_at: s.anchor_at!, timezone: s.timezone };
}

/** What applying advance `a` sets on its schedule. */
function advanceFields(a: ScheduleAdvance): Partial<Schedule> {
  const set: Partial<Schedule> = {
    next_due_at: a.next_due_at,
    last_outcome: a.outcome,
    last_due_at: a.due_at,
    last_external_run_id: a.external_run_id,
    last_note: a.note,
    advance_count: a.seq,
    updated_at: a.advanced_at,
  };
  if (a.outcome !== 'skipped') set.last_run_at = a.advanced_at;
  return set;
}

/** The schedule `s` (still at the occurrence `a` advanced) as applying `a` leaves it. */
export function appliedTo(s: Schedule, a: ScheduleAdvance): Schedule {
  return { ...s, ...advanceFields(a) };
}

/** The only code that touches mongoose for schedules. Decisions are inserts under unique keys. */
export class ScheduleRepository {
  constructor(private readonly models: Pick<Models, 'workflowSchedules' | 'scheduleClaims' | 'scheduleClaimEnds' | 'scheduleAdvances' | 'scheduleDue'>) {}

  async create(doc: Schedule): Promise<Schedule> {
    await this.models.workflowSchedules.collection.insertOne(doc as never);
    await this.enqueue(doc, 'scheduled', doc.created_at);
    return doc;
  }

  /** Many new schedules at once (seeding, benchmarks), each with its due-queue entry. */
  async createMany(docs: Schedule[]): Promise<void> {
    if (docs.length === 0) return;
    await this.models.workflowSchedules.collection.insertMany(docs as never[]);
    await this.models.scheduleDue.collection.insertMany(docs.map((d) => dueEntry(d, 'scheduled', d.created_at)) as never[]);
  }

  get(id: string): Promise<Schedule | null> {
    return this.models.workflowSchedules.findById(id).lean<Schedule>().exec();
  }

  async getInBudget(id: string, budgetId: string): Promise<Schedule | null> {
    const s = await this.get(id);
    return s && s.budget_id === budgetId ? s : null;
  }

  list(filter: { budgetId?: string; workspaceId?: string }, limit = 500): Promise<Schedule[]> {
    const q: Record<string, string> = {};
    if (filter.budgetId) q.budget_id = filter.budgetId;
    if (filter.workspaceId) q.workspace_id = filter.workspaceId;
    return this.models.workflowSchedules.find(q).sort({ created_at: 1, _id: 1 }).limit(limit).lean<Schedule[]>().exec();
  }

  /** Sets the paused flag (and the next occurrence on resume); the due queue is kept by lifecycle.ts. */
  async setPaused(id: string, paused: boolean, now: Date, nextDueAt?: Date): Promise<Schedule | null> {
    const set: Partial<Schedule> = { paused, paused_at: paused ? now : null, updated_at: now };
    if (nextDueAt) set.next_due_at = nextDueAt;
    await this.models.workflowSchedules.updateOne({ _id: id }, { $set: set });
    return this.get(id);
  }

  async delete(id: string): Promise<boolean> {
    const s = await this.get(id);
    const res = await this.models.workflowSchedules.deleteOne({ _id: id });
    if (s) await this.dequeue(s.budget_id, s.next_due_at, s._id);
    return res.deletedCount > 0;
  }

  // ── the due queue (an index of unclaimed occurrences; see models/schedule-due.ts) ──

  /** Puts the schedule's current occurrence in its budget's due queue (idempotent: one key per occurrence). */
  async enqueue(s: Schedule, reason: DueEntryReason, asOf: Date): Promise<DueEntry> {
    const doc = dueEntry(s, reason, asOf);
    if (!(await insertOnceGrouped(this.models.scheduleDue, doc))) await this.models.scheduleDue.collection.replaceOne({ _id: doc._id } as never, doc as never);
    return doc;
  }

  async dequeue(budgetId: string, base: Date, scheduleId: string): Promise<void> {
    await this.dequeueEntry(dueQueueKey(budgetId, base, scheduleId));
  }

  async dequeueEntry(id: string): Promise<void> {
    await this.models.scheduleDue.collection.deleteOne({ _id: id } as never);
  }

  /**
   * Removes the held entry of a claim from before (hasHeldEntry: keyed at its lease's expiry,
   * heldQueueKey) once it ended by release, advance or a takeover. Claims made now have none.
   */
  unhold(claim: ScheduleClaim): Promise<void> {
    return this.dequeueEntry(heldQueueKey(claim));
  }

  dueEntry(budgetId: string, base: Date, scheduleId: string): Promise<DueEntry | null> {
    return this.models.scheduleDue.findById(dueQueueKey(budgetId, base, scheduleId)).lean<DueEntry>().exec();
  }

  /** The budget's entries whose base occurrence is at or before `now` (one `_id` range; unordered). */
  dueEntries(budgetId: string, now: Date): Promise<DueEntry[]> {
    return this.models.scheduleDue.find({ _id: dueKeyRange(budgetId, now) }).lean<DueEntry[]>().exec();
  }

  /**
   * Rebuilds the due queue of unpaused schedules from the schedules and their claims (for
   * schedules created before the queue existed, or after a crash between a decision and its
   * queue write). Every occurrence not yet advanced gets its base entry: readers leave out a
   * held one until its lease runs out. `held` counts those held by an active claim.
   */
  async rebuildDueQueue(filter: { budgetId?: string }, now: Date): Promise<{ queued: number; held: number }> {
    const q: Record<string, unknown> = { paused: false };
    if (filter.budgetId) q.budget_id = filter.budgetId;
    const schedules = await this.models.workflowSchedules.find(q).lean<Schedule[]>().exec();
    let queued = 0;
    let held = 0;
    for (const s of schedules) {
      const latest = await this.latestClaim(s._id, s.next_due_at);
      if (latest?.end?.kind === 'advanced') continue;
      await this.enqueue(s, 'rebuilt', now);
      if (latest && !latest.end && latest.claim.lease_expires_at.getTime() > now.getTime()) held += 1;
      else queued += 1;
    }
    return { queued, held };
  }

  // ── claims ──

  /**
   * The latest claim of the occurrence starting at `base`, with its end. Attempts are numbered
   * from 0 and a later one exists only once the earlier ended, so this probes `_id`s in order.
   */
  async latestClaim(scheduleId: string, base: Date): Promise<ClaimState | null> {
    let claim: ScheduleClaim | null = null;
    for (let attempt = 0; ; attempt++) {
      if (attempt === MAX_PROBED_ATTEMPTS) {
        claim = await this.models.scheduleClaims.findOne({ schedule_id: scheduleId, base_due_at: base }).sort({ attempt: -1 }).lean<ScheduleClaim>().exec();
        break;
      }
      const next = await this.models.scheduleClaims.findById(claimId(scheduleId, base, attempt)).lean<ScheduleClaim>().exec();
      if (!next) break;
      claim = next;
    }
    if (!claim) return null;
    return { claim, end: await this.claimEnd(claim._id) };
  }

  /** The latest claim of each schedule's current occurrence (schedules without one are absent). */
  async latestClaims(schedules: Array<Pick<Schedule, '_id' | 'next_due_at'>>): Promise<Map<string, ClaimState>> {
    const found = await Promise.all(schedules.map(async (s) => [s._id, await this.latestClaim(s._id, s.next_due_at)] as const));
    return new Map(found.filter((f): f is readonly [string, ClaimState] => f[1] !== null));
  }

  claim(id: string): Promise<ScheduleClaim | null> {
    return this.models.scheduleClaims.findById(id).lean<ScheduleClaim>().exec();
  }

  /** The claim a token names, with its end: two point reads at once (one scan for tokens of the old form). */
  async claimByToken(token: string): Promise<ClaimState | null> {
    const id = claimIdOfToken(token);
    if (id === null) {
      const legacy = await this.models.scheduleClaims.findOne({ claim_token: token }).lean<ScheduleClaim>().exec();
      return legacy && legacy.claim_token === token ? { claim: legacy, end: await this.claimEnd(legacy._id) } : null;
    }
    const [claim, end] = await Promise.all([this.claim(id), this.claimEnd(id)]);
    return claim && claim.claim_token === token ? { claim, end } : null;
  }

  claimEnd(id: string): Promise<ScheduleClaimEnd | null> {
    return this.models.scheduleClaimEnds.findById(id).lean<ScheduleClaimEnd>().exec();
  }

  /** True when this call took the claim. Decisions go out with concurrent ones of their collection (group commit). */
  insertClaim(doc: ScheduleClaim): Promise<boolean> {
    return insertOnceGrouped(this.models.scheduleClaims, doc);
  }

  /** Ends a claim once: the winner of release, advance and expiry. Returns the end that holds. */
  async endClaim(claim: Pick<ScheduleClaim, '_id' | 'schedule_id'>, kind: ClaimEndKind, at: Date, extra: { reason?: string; note?: string } = {}) {
    const doc: ScheduleClaimEnd = { _id: claim._id, schedule_id: claim.schedule_id, kind, at, reason: extra.reason ?? null, note: extra.note ?? null };
    if (await insertOnceGrouped(this.models.scheduleClaimEnds, doc)) return { won: true, end: doc };
    const end = await this.claimEnd(claim._id);
    if (!end) throw new Error(`claim end of ${claim._id} is neither insertable nor readable`);
    return { won: false, end };
  }

  getAdvance(scheduleId: string, base: Date): Promise<ScheduleAdvance | null> {
    return this.advanceById(occurrenceKey(scheduleId, base));
  }

  advanceById(id: string): Promise<ScheduleAdvance | null> {
    return this.models.scheduleAdvances.findById(id).lean<ScheduleAdvance>().exec();
  }

  /** Records the handled occurrence once. Returns the record that holds (this one or an earlier). */
  async insertAdvance(doc: ScheduleAdvance): Promise<{ won: boolean; advance: ScheduleAdvance }> {
    if (await insertOnceGrouped(this.models.scheduleAdvances, doc)) return { won: true, advance: doc };
    const held = await this.models.scheduleAdvances.findById(doc._id).lean<ScheduleAdvance>().exec();
    if (!held) throw new Error(`advance ${doc._id} is neither insertable nor readable`);
    return { won: false, advance: held };
  }

  /**
   * Applies a recorded advance to the schedule. Only the occurrence it advanced may move it: the
   * guard on next_due_at makes a late repeat of an older advance a no-op (the decision itself was
   * the advance record's insert). Every field is set, none incremented, so two concurrent applies
   * of the same advance (FerretDB applies filtered updates non-atomically) write the same values.
   * False when the schedule was not at that occurrence (already moved on, or still behind it).
   */
  async applyAdvance(a: ScheduleAdvance): Promise<boolean> {
    const res = await this.models.workflowSchedules.updateOne({ _id: a.schedule_id, next_due_at: a.base_due_at }, { $set: advanceFields(a) });
    return res.matchedCount > 0;
  }

  /** applyAdvance that answers the schedule as it left it (one command), or null as applyAdvance's false. */
  applyAdvanceReturning(a: ScheduleAdvance): Promise<Schedule | null> {
    return this.models.workflowSchedules.findOneAndUpdate({ _id: a.schedule_id, next_due_at: a.base_due_at }, { $set: advanceFields(a) }, { new: true }).lean<Schedule>().exec();
  }

  history(scheduleId: string, limit = 20): Promise<ScheduleAdvance[]> {
    return this.models.scheduleAdvances.find({ schedule_id: scheduleId }).sort({ advanced_at: -1 }).limit(limit).lean<ScheduleAdvance[]>().exec();
  }
}

export type { ScheduleOutcome };
