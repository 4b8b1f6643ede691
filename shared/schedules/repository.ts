import { insertOnce, insertOnceGrouped } from '../platform/db/index';
import type { SchedulesModels as Models } from './models/index';
import type { ScheduleAdvanceDoc } from './models/schedule-advance';
import type { ScheduleClaimDoc } from './models/schedule-claim';
import type { ClaimEndKind, ScheduleClaimEndDoc } from './models/schedule-claim-end';
import type { SchedulePauseDoc } from './models/schedule-pause';
import type { ScheduleOutcome, WorkflowScheduleDoc } from './models/workflow-schedule';
import { timingOf } from './timing';

export type Schedule = WorkflowScheduleDoc;
export type ScheduleClaim = ScheduleClaimDoc;
export type ScheduleClaimEnd = ScheduleClaimEndDoc;
export type ScheduleAdvance = ScheduleAdvanceDoc;

/** A claim with how it ended, if it did. */
export interface ClaimState {
  claim: ScheduleClaim;
  end: ScheduleClaimEnd | null;
}

export const claimId = (scheduleId: string, base: Date, attempt: number) =>
  `${scheduleId}:${base.toISOString()}:${attempt}`;
export const occurrenceKey = (scheduleId: string, base: Date) => `${scheduleId}:${base.toISOString()}`;
/**
 * A claim token (ids.claimToken) names its claim, so the claim is read by `_id`. Tokens without
 * the id part (issued before) are looked up by value.
 */
export function claimIdOfToken(token: string): string | null {
  const m = /^clm_([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]+$/.exec(token);
  return m ? Buffer.from(m[1], 'base64url').toString('utf8') : null;
}
/** The occurrence key of a claim id (`<schedule>:<base ISO>:<attempt>` without the attempt). */
export function occurrenceKeyOfClaim(id: string): string | null {
  const m = /^(.+):\d+$/.exec(id);
  return m ? m[1] : null;
}
/** Probing attempts by `_id` beyond this many falls back to the (scanning) query. */
const MAX_PROBED_ATTEMPTS = 20;

export { timingOf };

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

/**
 * The schedule as its pause row says: paused while the row exists. A document paused by the code
 * before the rows (its own flag set, no row) stays paused until resumed.
 */
export function withPause(s: Schedule, pause: Pick<SchedulePauseDoc, 'paused_at'> | null): Schedule {
  return pause ? { ...s, paused: true, paused_at: pause.paused_at } : s;
}

/** The schedule `s` (still at the occurrence `a` advanced) as applying `a` leaves it. */
export function appliedTo(s: Schedule, a: ScheduleAdvance): Schedule {
  return { ...s, ...advanceFields(a) };
}

/** The only code that touches mongoose for schedules. Decisions are inserts under unique keys. */
export class ScheduleRepository {
  constructor(
    private readonly models: Pick<
      Models,
      'workflowSchedules' | 'scheduleClaims' | 'scheduleClaimEnds' | 'scheduleAdvances' | 'schedulePauses'
    >,
  ) {}

  async create(doc: Schedule): Promise<Schedule> {
    await this.models.workflowSchedules.collection.insertOne(doc as never);
    return doc;
  }

  /** Many new schedules at once (seeding, benchmarks). */
  async createMany(docs: Schedule[]): Promise<void> {
    if (docs.length === 0) return;
    await this.models.workflowSchedules.collection.insertMany(docs as never[]);
  }

  /** The schedule with its pause (read from its own row at the same time). */
  async get(id: string): Promise<Schedule | null> {
    const [s, pause] = await Promise.all([
      this.models.workflowSchedules.findById(id).lean<Schedule>().exec(),
      this.pauseOf(id),
    ]);
    return s && withPause(s, pause);
  }

  async getInBudget(id: string, budgetId: string): Promise<Schedule | null> {
    const s = await this.get(id);
    return s && s.budget_id === budgetId ? s : null;
  }

  async list(filter: { budgetId?: string; workspaceId?: string }, limit = 500): Promise<Schedule[]> {
    const q: Record<string, string> = {};
    if (filter.budgetId) q.budget_id = filter.budgetId;
    if (filter.workspaceId) q.workspace_id = filter.workspaceId;
    const found = await this.models.workflowSchedules
      .find(q)
      .sort({ created_at: 1, _id: 1 })
      .limit(limit)
      .lean<Schedule[]>()
      .exec();
    const pauses = await this.pausesOf(found.map((s) => s._id));
    return found.map((s) => withPause(s, pauses.get(s._id) ?? null));
  }

  /** A budget's pause rows (few: a pause is an operator's act), for PauseReads. */
  async budgetPauses(budgetId: string): Promise<Map<string, Date>> {
    const rows = await this.models.schedulePauses
      .find({ budget_id: budgetId }, { _id: 1, paused_at: 1 })
      .lean<Array<Pick<SchedulePauseDoc, '_id' | 'paused_at'>>>()
      .exec();
    return new Map(rows.map((p) => [p._id, p.paused_at]));
  }

  /** The schedule's pause row, if it is paused. */
  pauseOf(id: string): Promise<SchedulePauseDoc | null> {
    return this.models.schedulePauses.findById(id).lean<SchedulePauseDoc>().exec();
  }

  private async pausesOf(ids: string[]): Promise<Map<string, SchedulePauseDoc>> {
    if (ids.length === 0) return new Map();
    const rows = await this.models.schedulePauses
      .find({ _id: { $in: ids } })
      .lean<SchedulePauseDoc[]>()
      .exec();
    return new Map(rows.map((p) => [p._id, p]));
  }

  /**
   * Pauses a schedule: an insert of its pause row, so nothing that rewrites the schedule document
   * (an advance's apply) can undo it. False when it was paused already.
   */
  pause(s: Pick<Schedule, '_id' | 'budget_id'>, now: Date): Promise<boolean> {
    return insertOnce(this.models.schedulePauses, { _id: s._id, budget_id: s.budget_id, paused_at: now });
  }

  /**
   * Resumes a schedule at `nextDueAt`: the occurrence moves first, then the pause row goes, so the
   * schedule is never due at an occurrence of its paused period. The document's own flag (set by
   * pauses from before the rows) is cleared with it.
   */
  async resume(id: string, now: Date, nextDueAt: Date): Promise<void> {
    await this.models.workflowSchedules.updateOne(
      { _id: id },
      { $set: { next_due_at: nextDueAt, paused: false, paused_at: null, updated_at: now } },
    );
    await this.models.schedulePauses.deleteOne({ _id: id });
  }

  async delete(id: string): Promise<boolean> {
    const res = await this.models.workflowSchedules.deleteOne({ _id: id });
    await this.models.schedulePauses.deleteOne({ _id: id });
    return res.deletedCount > 0;
  }

  // ── due reads: the schedule documents are the queue (docs/schedules.md#due-queue) ──

  /**
   * The budget's unpaused schedules whose current occurrence is at or before `now` (unordered).
   * The equalities are pushed down to PostgreSQL by FerretDB; the date bound is applied by it. The
   * budget's pause rows are read beside it (`pauses`: a read the caller may share, begun now) and
   * their schedules left out.
   */
  async dueSchedules(
    budgetId: string,
    now: Date,
    pauses: Promise<ReadonlyMap<string, Date>> = this.budgetPauses(budgetId),
  ): Promise<Schedule[]> {
    const [due, paused] = await Promise.all([
      this.models.workflowSchedules
        .find({ budget_id: budgetId, paused: false, next_due_at: { $lte: now } })
        .lean<Schedule[]>()
        .exec(),
      pauses,
    ]);
    return paused.size === 0 ? due : due.filter((s) => !paused.has(s._id));
  }

  /**
   * What `schedule:reindex` reported when a separate due queue existed: the budget's unpaused
   * schedules whose current occurrence is not advanced, `held` those an active claim holds. There
   * is nothing to rebuild any more (a schedule is due from its own document), so this only counts.
   */
  async openOccurrences(filter: { budgetId?: string }, now: Date): Promise<{ queued: number; held: number }> {
    const q: Record<string, unknown> = { paused: false };
    if (filter.budgetId) q.budget_id = filter.budgetId;
    const [schedules, pauses] = await Promise.all([
      this.models.workflowSchedules.find(q).lean<Schedule[]>().exec(),
      this.models.schedulePauses
        .find(filter.budgetId ? { budget_id: filter.budgetId } : {}, { _id: 1 })
        .lean<Array<{ _id: string }>>()
        .exec(),
    ]);
    const paused = new Set(pauses.map((p) => p._id));
    let queued = 0;
    let held = 0;
    for (const s of schedules) {
      if (paused.has(s._id)) continue;
      const latest = await this.latestClaim(s._id, s.next_due_at);
      if (latest?.end?.kind === 'advanced') continue;
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
        claim = await this.models.scheduleClaims
          .findOne({ schedule_id: scheduleId, base_due_at: base })
          .sort({ attempt: -1 })
          .lean<ScheduleClaim>()
          .exec();
        break;
      }
      const next = await this.models.scheduleClaims
        .findById(claimId(scheduleId, base, attempt))
        .lean<ScheduleClaim>()
        .exec();
      if (!next) break;
      claim = next;
    }
    if (!claim) return null;
    return { claim, end: await this.claimEnd(claim._id) };
  }

  /** The latest claim of each schedule's current occurrence (schedules without one are absent). */
  async latestClaims(schedules: Array<Pick<Schedule, '_id' | 'next_due_at'>>): Promise<Map<string, ClaimState>> {
    const found = await Promise.all(
      schedules.map(async (s) => [s._id, await this.latestClaim(s._id, s.next_due_at)] as const),
    );
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

  /**
   * Ends a claim once: the winner of release, advance and expiry. Returns the end that holds. An
   * advance passes its record, so the end is the advance's decision too (ScheduleClaimEndDoc).
   */
  async endClaim(
    claim: Pick<ScheduleClaim, '_id' | 'schedule_id'>,
    kind: ClaimEndKind,
    at: Date,
    extra: { reason?: string; note?: string; advance?: ScheduleAdvance } = {},
  ) {
    const doc: ScheduleClaimEnd = {
      _id: claim._id,
      schedule_id: claim.schedule_id,
      kind,
      at,
      reason: extra.reason ?? null,
      note: extra.note ?? null,
    };
    if (extra.advance) doc.advance = extra.advance;
    if (await insertOnceGrouped(this.models.scheduleClaimEnds, doc)) return { won: true, end: doc };
    const end = await this.claimEnd(claim._id);
    if (!end) throw new Error(`claim end of ${claim._id} is neither insertable nor readable`);
    return { won: false, end };
  }

  /** The advance of the occurrence starting at `base`, if one was recorded: its latest claim's `advanced` end. */
  async getAdvance(scheduleId: string, base: Date): Promise<ScheduleAdvance | null> {
    const latest = await this.latestClaim(scheduleId, base);
    return latest?.end?.kind === 'advanced' ? this.advanceOfEnd(latest.end) : null;
  }

  /** The advance an `advanced` end decided: carried by the end, or (ends written before) its record in `schedule_advances`. */
  async advanceOfEnd(end: ScheduleClaimEnd): Promise<ScheduleAdvance | null> {
    if (end.advance) return end.advance;
    const occurrence = occurrenceKeyOfClaim(end._id);
    return occurrence ? this.models.scheduleAdvances.findById(occurrence).lean<ScheduleAdvance>().exec() : null;
  }

  /**
   * Records an advance in `schedule_advances`, the place of advance records before they rode on
   * the claim's end: only for an end from before whose record was never written (a crash between
   * the two inserts the old code made). Returns the record that holds.
   */
  async insertLegacyAdvance(doc: ScheduleAdvance): Promise<{ won: boolean; advance: ScheduleAdvance }> {
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
    const res = await this.models.workflowSchedules.updateOne(
      { _id: a.schedule_id, next_due_at: a.base_due_at },
      { $set: advanceFields(a) },
    );
    return res.matchedCount > 0;
  }

  /**
   * applyAdvance on an unpaused schedule only: true when it applied. The advance's common case: a
   * plain update costs the store less than findOneAndUpdate (measured: docs/decisions.md), and
   * the caller knows what it leaves (appliedTo of the schedule as claimed).
   */
  async applyAdvanceIfOpen(a: ScheduleAdvance): Promise<boolean> {
    const res = await this.models.workflowSchedules.updateOne(
      { _id: a.schedule_id, next_due_at: a.base_due_at, paused: false },
      { $set: advanceFields(a) },
    );
    return res.matchedCount > 0;
  }

  /** applyAdvance that answers the schedule as it left it (one command), or null as applyAdvance's false. */
  applyAdvanceReturning(a: ScheduleAdvance): Promise<Schedule | null> {
    return this.models.workflowSchedules
      .findOneAndUpdate(
        { _id: a.schedule_id, next_due_at: a.base_due_at },
        { $set: advanceFields(a) },
        { returnDocument: 'after' },
      )
      .lean<Schedule>()
      .exec();
  }

  /** The schedule's latest advances, newest first: from the `advanced` ends, and the records written before them. */
  async history(scheduleId: string, limit = 20): Promise<ScheduleAdvance[]> {
    const [ends, before] = await Promise.all([
      this.models.scheduleClaimEnds
        .find({ schedule_id: scheduleId, kind: 'advanced' })
        .sort({ at: -1 })
        .limit(limit)
        .lean<ScheduleClaimEnd[]>()
        .exec(),
      this.models.scheduleAdvances
        .find({ schedule_id: scheduleId })
        .sort({ advanced_at: -1 })
        .limit(limit)
        .lean<ScheduleAdvance[]>()
        .exec(),
    ]);
    const byOccurrence = new Map<string, ScheduleAdvance>(before.map((a) => [a._id, a]));
    for (const e of ends) if (e.advance) byOccurrence.set(e.advance._id, e.advance);
    return [...byOccurrence.values()].sort((a, b) => b.advanced_at.getTime() - a.advanced_at.getTime()).slice(0, limit);
  }
}

export type { ScheduleOutcome };
