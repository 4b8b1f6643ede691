import { randomBytes } from 'node:crypto';
import { insertOnce, type Models } from '../db';
import type { ScheduleAdvanceDoc } from '../db/models/schedule-advance';
import type { ScheduleClaimDoc } from '../db/models/schedule-claim';
import type { ClaimEndKind, ScheduleClaimEndDoc } from '../db/models/schedule-claim-end';
import type { ScheduleOutcome, WorkflowScheduleDoc } from '../db/models/workflow-schedule';
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
export const newClaimToken = () => `clm_${randomBytes(18).toString('base64url')}`;

export function timingOf(s: Pick<Schedule, 'kind' | 'cron' | 'every_seconds' | 'anchor_at' | 'timezone'>): ScheduleTiming {
  return s.kind === 'cron'
    ? { kind: 'cron', cron: s.cron!, timezone: s.timezone }
    : { kind: 'interval', every_seconds: s.every_seconds!, anchor_at: s.anchor_at!, timezone: s.timezone };
}

/** The only code that touches mongoose for schedules. Decisions are inserts under unique keys. */
export class ScheduleRepository {
  constructor(private readonly models: Pick<Models, 'workflowSchedules' | 'scheduleClaims' | 'scheduleClaimEnds' | 'scheduleAdvances'>) {}

  async create(doc: Schedule): Promise<Schedule> {
    await this.models.workflowSchedules.collection.insertOne(doc as never);
    return doc;
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

  /** Unpaused schedules of a budget whose next occurrence is due, oldest first, after a cursor. */
  dueCandidates(budgetId: string, now: Date, limit: number, after?: { next_due_at: Date; id: string }): Promise<Schedule[]> {
    const q: Record<string, unknown> = { budget_id: budgetId, paused: false, next_due_at: { $lte: now } };
    if (after) {
      q.$or = [{ next_due_at: { $gt: after.next_due_at } }, { next_due_at: after.next_due_at, _id: { $gt: after.id } }];
    }
    return this.models.workflowSchedules.find(q).sort({ next_due_at: 1, _id: 1 }).limit(limit).lean<Schedule[]>().exec();
  }

  async setPaused(id: string, paused: boolean, now: Date, nextDueAt?: Date): Promise<Schedule | null> {
    const set: Partial<Schedule> = { paused, paused_at: paused ? now : null, updated_at: now };
    if (nextDueAt) set.next_due_at = nextDueAt;
    await this.models.workflowSchedules.updateOne({ _id: id }, { $set: set });
    return this.get(id);
  }

  async delete(id: string): Promise<boolean> {
    const res = await this.models.workflowSchedules.deleteOne({ _id: id });
    return res.deletedCount > 0;
  }

  /** The latest claim of the occurrence starting at `base`, with its end. */
  async latestClaim(scheduleId: string, base: Date): Promise<ClaimState | null> {
    const claim = await this.models.scheduleClaims
      .findOne({ schedule_id: scheduleId, base_due_at: base })
      .sort({ attempt: -1 })
      .lean<ScheduleClaim>()
      .exec();
    if (!claim) return null;
    return { claim, end: await this.claimEnd(claim._id) };
  }

  /** The latest claim of each schedule's current occurrence (schedules without one are absent). */
  async latestClaims(schedules: Array<Pick<Schedule, '_id' | 'next_due_at'>>): Promise<Map<string, ClaimState>> {
    const out = new Map<string, ClaimState>();
    if (schedules.length === 0) return out;
    const claims = await this.models.scheduleClaims
      .find({ $or: schedules.map((s) => ({ schedule_id: s._id, base_due_at: s.next_due_at })) })
      .lean<ScheduleClaim[]>()
      .exec();
    for (const c of claims) {
      const have = out.get(c.schedule_id);
      if (!have || have.claim.attempt < c.attempt) out.set(c.schedule_id, { claim: c, end: null });
    }
    if (out.size === 0) return out;
    const ends = await this.models.scheduleClaimEnds
      .find({ _id: { $in: [...out.values()].map((s) => s.claim._id) } })
      .lean<ScheduleClaimEnd[]>()
      .exec();
    for (const e of ends) out.get(e.schedule_id)!.end = e;
    return out;
  }

  async claimByToken(token: string): Promise<ClaimState | null> {
    const claim = await this.models.scheduleClaims.findOne({ claim_token: token }).lean<ScheduleClaim>().exec();
    if (!claim) return null;
    return { claim, end: await this.claimEnd(claim._id) };
  }

  claimEnd(id: string): Promise<ScheduleClaimEnd | null> {
    return this.models.scheduleClaimEnds.findById(id).lean<ScheduleClaimEnd>().exec();
  }

  /** True when this call took the claim. */
  insertClaim(doc: ScheduleClaim): Promise<boolean> {
    return insertOnce(this.models.scheduleClaims, doc);
  }

  /** Ends a claim once: the winner of release, advance and expiry. Returns the end that holds. */
  async endClaim(claim: Pick<ScheduleClaim, '_id' | 'schedule_id'>, kind: ClaimEndKind, at: Date, extra: { reason?: string; note?: string } = {}) {
    const doc: ScheduleClaimEnd = { _id: claim._id, schedule_id: claim.schedule_id, kind, at, reason: extra.reason ?? null, note: extra.note ?? null };
    if (await insertOnce(this.models.scheduleClaimEnds, doc)) return { won: true, end: doc };
    const end = await this.claimEnd(claim._id);
    if (!end) throw new Error(`claim end of ${claim._id} is neither insertable nor readable`);
    return { won: false, end };
  }

  getAdvance(scheduleId: string, base: Date): Promise<ScheduleAdvance | null> {
    return this.models.scheduleAdvances.findById(occurrenceKey(scheduleId, base)).lean<ScheduleAdvance>().exec();
  }

  /** Records the handled occurrence once. Returns the record that holds (this one or an earlier). */
  async insertAdvance(doc: ScheduleAdvance): Promise<{ won: boolean; advance: ScheduleAdvance }> {
    if (await insertOnce(this.models.scheduleAdvances, doc)) return { won: true, advance: doc };
    const held = await this.models.scheduleAdvances.findById(doc._id).lean<ScheduleAdvance>().exec();
    if (!held) throw new Error(`advance ${doc._id} is neither insertable nor readable`);
    return { won: false, advance: held };
  }

  /**
   * Applies a recorded advance to the schedule. Only the occurrence it advanced may move it: the
   * guard on next_due_at makes a late repeat of an older advance a no-op (the decision itself was
   * the advance record's insert). Every field is set, none incremented, so two concurrent applies
   * of the same advance (FerretDB applies filtered updates non-atomically) write the same values.
   */
  async applyAdvance(a: ScheduleAdvance): Promise<void> {
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
    await this.models.workflowSchedules.updateOne({ _id: a.schedule_id, next_due_at: a.base_due_at }, { $set: set });
  }

  history(scheduleId: string, limit = 20): Promise<ScheduleAdvance[]> {
    return this.models.scheduleAdvances.find({ schedule_id: scheduleId }).sort({ advanced_at: -1 }).limit(limit).lean<ScheduleAdvance[]>().exec();
  }
}

export type { ScheduleOutcome };
