import { AppError, errors } from '../../shared/errors';
import { logger } from '../../shared/logger';
import { claimStatus, type LeaseBounds } from '../../shared/schedules/claim-rules';
import {
  claimId,
  newClaimToken,
  occurrenceKey,
  timingOf,
  type ClaimState,
  type Schedule,
  type ScheduleAdvance,
  type ScheduleClaim,
  ScheduleRepository,
} from '../../shared/schedules/repository';
import type { AdvanceBody, ClaimBody, DueQuery, ReleaseBody } from '../../shared/schedules/schemas';
import { dueOccurrence, nextOccurrence } from '../../shared/schedules/timing';
import type { TemporalHandle } from '../../temporal/connection';
import { signalLeaseEnded, startLease } from '../../temporal/schedule-lease/client';

/** Schedule conflicts answer in the gateway shape with `error` set to the code itself, as the spec shows. */
function conflict(code: string, message: string, details?: Record<string, unknown>): AppError {
  return errors.conflict(code, message, { details, extra: { error: code } });
}

const iso = (d: Date) => d.toISOString();

export interface DueItem {
  schedule: Schedule;
  due_at: Date;
  skipped: number;
  skipped_at_least: boolean;
}

export interface ClaimResult {
  claim: ScheduleClaim;
  schedule: Schedule;
  skipped_at_least: boolean;
}

/** A "next due" claim looks through at most CLAIM_PAGES × CLAIM_PAGE due schedules. */
const CLAIM_PAGE = 50;
const CLAIM_PAGES = 4;

/**
 * Due occurrences, claims, releases and advances for one budget. Every decision is an insert
 * under a unique key (claim per occurrence attempt, claim end per claim, advance per occurrence),
 * so it holds on FerretDB and MongoDB alike; leases run out on a Temporal timer.
 */
export class ScheduleService {
  constructor(
    private readonly repo: ScheduleRepository,
    private readonly temporal: TemporalHandle,
    readonly lease: LeaseBounds,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async scheduleInBudget(budgetId: string, scheduleId: string): Promise<Schedule> {
    const s = await this.repo.getInBudget(scheduleId, budgetId);
    if (!s) throw errors.notFound('schedule_not_found', `no schedule ${scheduleId} in this budget`);
    return s;
  }

  /** The claim that holds a schedule's current occurrence now, if any. */
  async activeClaim(s: Schedule, now = this.clock()): Promise<ScheduleClaim | null> {
    const state = await this.repo.latestClaim(s._id, s.next_due_at);
    return state && claimStatus(state, now) === 'active' ? state.claim : null;
  }

  /** The budget's due and unclaimed occurrences, oldest first, a page at a time. */
  async due(budgetId: string, q: DueQuery): Promise<{ items: DueItem[]; nextCursor: string | null; now: Date }> {
    const now = this.clock();
    let after = q.cursor ? decodeCursor(q.cursor) : undefined;
    const items: DueItem[] = [];
    // Claimed schedules are filtered out after the read, so a page may take a few reads to fill.
    for (let round = 0; round < 5; round++) {
      const batch = await this.unclaimedDue(budgetId, now, q.limit, after);
      for (const { schedule: s, skipped } of batch.open) {
        if (items.length === q.limit) return { items, nextCursor: encodeCursor(after!), now };
        after = { next_due_at: s.next_due_at, id: s._id };
        if (skipped) continue;
        const occ = dueOccurrence(timingOf(s), s.next_due_at, now);
        if (occ) items.push({ schedule: s, due_at: occ.due_at, skipped: occ.skipped, skipped_at_least: occ.skipped_at_least });
      }
      if (!batch.more) return { items, nextCursor: null, now };
    }
    return { items, nextCursor: after ? encodeCursor(after) : null, now };
  }

  /** One page of due schedules, each marked whether an active claim holds it. */
  private async unclaimedDue(budgetId: string, now: Date, limit: number, after?: { next_due_at: Date; id: string }) {
    const batch = await this.repo.dueCandidates(budgetId, now, limit, after);
    const claims = await this.repo.latestClaims(batch);
    return {
      open: batch.map((schedule) => {
        const c = claims.get(schedule._id);
        return { schedule, skipped: c !== undefined && claimStatus(c, now) === 'active' };
      }),
      more: batch.length === limit,
    };
  }

  /**
   * Claims one due occurrence: of the given schedule, or the budget's oldest claimable one.
   * Concurrent "next due" claimers that lose the oldest spread over the rest of the page instead
   * of all racing for the next one in line.
   */
  async claim(budgetId: string, body: ClaimBody): Promise<ClaimResult> {
    if (body.schedule_id) {
      const s = await this.scheduleInBudget(budgetId, body.schedule_id);
      return this.claimSchedule(s, body.lease_seconds, await this.repo.latestClaim(s._id, s.next_due_at));
    }
    let after: { next_due_at: Date; id: string } | undefined;
    for (let round = 0; round < CLAIM_PAGES; round++) {
      const now = this.clock();
      const batch = await this.repo.dueCandidates(budgetId, now, CLAIM_PAGE, after);
      if (batch.length > 0) after = { next_due_at: batch[batch.length - 1].next_due_at, id: batch[batch.length - 1]._id };
      const claims = await this.repo.latestClaims(batch);
      const open = batch.filter((s) => {
        const c = claims.get(s._id);
        return !c || claimStatus(c, now) !== 'active';
      });
      // The oldest first; a claimer that loses it moves to a random place in the rest of the page.
      const k = 1 + Math.floor(Math.random() * Math.max(1, open.length - 1));
      const order = open.length > 1 ? [open[0], ...open.slice(k), ...open.slice(1, k)] : open;
      for (const s of order) {
        try {
          return await this.claimSchedule(s, body.lease_seconds, claims.get(s._id) ?? null);
        } catch (err) {
          // Another claimer got there first: try the next one.
          if (err instanceof AppError && (err.code === 'occurrence_claimed' || err.code === 'occurrence_not_due')) continue;
          throw err;
        }
      }
      if (batch.length < CLAIM_PAGE) break;
    }
    throw conflict('occurrence_not_due', 'no occurrence of this budget is due and unclaimed');
  }

  /**
   * `latest` is the occurrence's latest claim as read before; if it is stale, the insert below
   * loses to whoever changed it, which is the decision anyway.
   */
  private async claimSchedule(s: Schedule, leaseSeconds: number, latest: ClaimState | null): Promise<ClaimResult> {
    const now = this.clock();
    if (s.paused) throw conflict('occurrence_not_due', 'the schedule is paused', { paused: true });
    const occ = dueOccurrence(timingOf(s), s.next_due_at, now);
    if (!occ) throw conflict('occurrence_not_due', `the next occurrence is due at ${iso(s.next_due_at)}`, { next_due_at: iso(s.next_due_at) });
    let attempt = 0;
    if (latest) {
      const status = claimStatus(latest, now);
      if (status === 'active') throw conflict('occurrence_claimed', 'this occurrence is already claimed', { lease_expires_at: iso(latest.claim.lease_expires_at) });
      if (status === 'advanced') throw conflict('occurrence_not_due', 'this occurrence was just advanced');
      if (!latest.end) {
        // Expired by the clock but not yet recorded: record it, unless its holder's advance got there first.
        const { end } = await this.repo.endClaim(latest.claim, 'expired', now, { reason: 'superseded_after_expiry' });
        if (end.kind === 'advanced') throw conflict('occurrence_not_due', 'this occurrence was just advanced');
      }
      attempt = latest.claim.attempt + 1;
    }
    const claim: ScheduleClaim = {
      _id: claimId(s._id, s.next_due_at, attempt),
      schedule_id: s._id,
      budget_id: s.budget_id,
      base_due_at: s.next_due_at,
      attempt,
      due_at: occ.due_at,
      skipped: occ.skipped,
      claim_token: newClaimToken(),
      claimed_at: now,
      lease_expires_at: new Date(now.getTime() + leaseSeconds * 1000),
    };
    if (!(await this.repo.insertClaim(claim))) throw conflict('occurrence_claimed', 'another holder claimed this occurrence first');
    try {
      await startLease(this.temporal, {
        claimId: claim._id,
        scheduleId: s._id,
        budgetId: s.budget_id,
        dueAt: iso(claim.due_at),
        leaseExpiresAt: iso(claim.lease_expires_at),
      });
    } catch (err) {
      // No lease timer, no claim: hand the occurrence straight back and let the caller retry.
      await this.repo.endClaim(claim, 'released', this.clock(), { reason: 'lease_start_failed' }).catch(() => undefined);
      throw err;
    }
    return { claim, schedule: s, skipped_at_least: occ.skipped_at_least };
  }

  /** The holder's claim on this schedule, checked against the request, or the spec's 409. */
  private async heldClaim(s: Schedule, token: string, dueAt: Date, op: 'advance' | 'release'): Promise<ClaimState> {
    const held = await this.repo.claimByToken(token);
    if (!held || held.claim.schedule_id !== s._id) {
      if (op === 'advance' && !(await this.activeClaim(s))) throw conflict('claim_required', 'no claim on this schedule holds this token; claim the occurrence first');
      throw conflict('claim_mismatch', 'this token holds no claim on this schedule');
    }
    if (held.claim.due_at.getTime() !== dueAt.getTime()) {
      throw conflict('due_at_mismatch', `this claim holds the occurrence due at ${iso(held.claim.due_at)}`, { claimed_due_at: iso(held.claim.due_at) });
    }
    return held;
  }

  private refuseEnded(held: ClaimState, now: Date, op: 'advance' | 'release'): void {
    const status = claimStatus(held, now);
    const lease = { lease_expires_at: iso(held.claim.lease_expires_at) };
    if (status === 'expired') throw conflict('claim_expired', 'the lease of this claim has expired; the occurrence went back to the due queue', lease);
    if (status === 'advanced') throw conflict('claim_mismatch', 'this claim already advanced the schedule');
    if (status === 'released' && op === 'advance') throw conflict('claim_required', 'this claim was released; claim the occurrence again');
  }

  async advance(budgetId: string, scheduleId: string, body: AdvanceBody): Promise<{ schedule: Schedule; already_advanced: boolean }> {
    const s = await this.scheduleInBudget(budgetId, scheduleId);
    const held = await this.heldClaim(s, body.claim_token, body.due_at, 'advance');
    const { claim } = held;
    const recorded = await this.repo.getAdvance(s._id, claim.base_due_at);
    if (recorded) {
      if (recorded.claim_token === claim.claim_token) return { schedule: await this.finishAdvance(recorded), already_advanced: true };
      this.refuseEnded(held, this.clock(), 'advance');
      throw conflict('claim_mismatch', 'another claim advanced this occurrence');
    }
    const now = this.clock();
    if (held.end?.kind !== 'advanced') {
      this.refuseEnded(held, now, 'advance');
      const { end } = await this.repo.endClaim(claim, 'advanced', now, { note: body.note });
      if (end.kind !== 'advanced') this.refuseEnded({ claim, end }, now, 'advance');
    }
    const next = nextOccurrence(timingOf(s), claim.due_at);
    if (!next) throw errors.internal('internal_error', 'the schedule has no occurrence after this one');
    const { won, advance } = await this.repo.insertAdvance({
      _id: occurrenceKey(s._id, claim.base_due_at),
      schedule_id: s._id,
      budget_id: s.budget_id,
      claim_id: claim._id,
      claim_token: claim.claim_token,
      base_due_at: claim.base_due_at,
      due_at: claim.due_at,
      skipped: claim.skipped,
      next_due_at: next,
      seq: s.advance_count + 1,
      outcome: body.outcome ?? null,
      external_run_id: body.external_run_id ?? null,
      note: body.note ?? null,
      advanced_at: now,
    });
    const schedule = await this.finishAdvance(advance);
    if (won) await this.signal(claim._id, 'advanced');
    return { schedule, already_advanced: !won };
  }

  /** Applies a recorded advance (again, harmlessly, after a crash between record and apply). */
  private async finishAdvance(a: ScheduleAdvance): Promise<Schedule> {
    await this.repo.applyAdvance(a);
    const s = await this.repo.get(a.schedule_id);
    if (!s) throw errors.notFound('schedule_not_found', `schedule ${a.schedule_id} is gone`);
    return s;
  }

  async release(budgetId: string, scheduleId: string, body: ReleaseBody): Promise<{ schedule: Schedule }> {
    const s = await this.scheduleInBudget(budgetId, scheduleId);
    const held = await this.heldClaim(s, body.claim_token, body.due_at, 'release');
    const now = this.clock();
    if (held.end?.kind === 'released') return { schedule: s };
    this.refuseEnded(held, now, 'release');
    const { won, end } = await this.repo.endClaim(held.claim, 'released', now, { note: body.note, reason: 'released_by_holder' });
    if (!won && end.kind !== 'released') this.refuseEnded({ claim: held.claim, end }, now, 'release');
    if (won) await this.signal(held.claim._id, 'released');
    return { schedule: s };
  }

  /**
   * Ends the lease workflow now. Best effort: the end is already recorded, and a lease that
   * misses the signal (Temporal down) finds the claim ended when its timer fires.
   */
  private async signal(claim: string, kind: 'released' | 'advanced'): Promise<void> {
    await signalLeaseEnded(this.temporal, claim, kind).catch((err) =>
      logger.warn('could not signal schedule lease', { claim_id: claim, kind, error: (err as Error).message }),
    );
  }
}

function encodeCursor(c: { next_due_at: Date; id: string }): string {
  return Buffer.from(`${c.next_due_at.toISOString()}|${c.id}`).toString('base64url');
}

function decodeCursor(s: string): { next_due_at: Date; id: string } {
  const [at, id] = Buffer.from(s, 'base64url').toString().split('|');
  const next = new Date(at);
  if (!id || Number.isNaN(next.getTime())) throw errors.badRequest('invalid_request_body', 'cursor is not one this endpoint gave out');
  return { next_due_at: next, id };
}
