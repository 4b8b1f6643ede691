import { AppError, errors } from '../platform/errors/index';
import { ids } from '../platform/ids/index';
import { ClaimMemory, LEARNED_HOLD_MS, OWN_HOLD_MS } from './claim-memory';
import { claimStatus, type LeaseBounds } from './claim-rules';
import { decodeCursor, encodeCursor, isAfter } from './due-cursor';
import { orderQueue, type QueuedOccurrence, spread } from './due-queue';
import { CLAIM_READ_MAX_AGE_MS, DueReads } from './due-reads';
import { PauseReads } from './pause-reads';
import {
  appliedTo,
  claimId,
  type ClaimState,
  occurrenceKey,
  type Schedule,
  type ScheduleAdvance,
  type ScheduleClaim,
  ScheduleRepository,
  timingOf,
  withPause,
} from './repository';
import type { AdvanceBody, ClaimBody, DueQuery, ReleaseBody } from './schemas';
import { dueOccurrence, nextOccurrence } from './timing';

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

/** A "next due" claim tries at most CLAIM_TRIES occurrences. */
const CLAIM_TRIES = 200;
/**
 * Due occurrences, claims, releases and advances for one budget. Every decision is an insert
 * under a unique key (claim per occurrence attempt, claim end per claim, and the `advanced` end
 * carries the advance), so it holds on FerretDB and MongoDB alike. A schedule's document is its
 * own queue entry: the advance's guarded apply moves `next_due_at`. A lease runs out by the clock:
 * the claim is refused from `lease_expires_at` on, and readers leave its occurrence out only until
 * then, so expiry needs no timer and no caller (docs/schedules.md#leases).
 */
export class ScheduleService {
  private readonly reads: DueReads;
  private readonly pauses: PauseReads;
  private readonly memory = new ClaimMemory();
  /** "Next due" claims in flight per budget in this process. */
  private readonly claiming = new Map<string, number>();

  constructor(
    private readonly repo: ScheduleRepository,
    readonly lease: LeaseBounds,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.pauses = new PauseReads((budgetId) => repo.budgetPauses(budgetId));
    // A due read's pause rows are a read begun now: the budget's claims that began before it share it.
    this.reads = new DueReads((budgetId, now) =>
      repo.dueSchedules(budgetId, now, this.pauses.pausesOf(budgetId, this.pauses.now())),
    );
  }

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

  /**
   * The budget's due and unclaimed occurrences, oldest coalesced `due_at` first (then schedule
   * id), a page at a time. Each schedule handed out is checked against its occurrence's claims.
   */
  async due(budgetId: string, q: DueQuery): Promise<{ items: DueItem[]; nextCursor: string | null; now: Date }> {
    const now = this.clock();
    const after = q.cursor ? decodeCursor(q.cursor) : undefined;
    const queue = orderQueue(await this.dueSchedules(budgetId, now), now).filter((o) => !after || isAfter(o, after));
    const items: DueItem[] = [];
    let seen = 0;
    while (seen < queue.length && items.length < q.limit) {
      const chunk = queue.slice(seen, seen + q.limit - items.length);
      seen += chunk.length;
      const open = await Promise.all(chunk.map((o) => this.openSchedule(o.schedule, now)));
      chunk.forEach((o, i) => {
        const schedule = open[i];
        if (schedule)
          items.push({ schedule, due_at: o.due_at, skipped: o.skipped, skipped_at_least: o.skipped_at_least });
      });
    }
    const last = queue[seen - 1];
    return {
      items,
      nextCursor: seen < queue.length && last ? encodeCursor({ due_at: last.due_at, id: last.schedule._id }) : null,
      now,
    };
  }

  /**
   * The budget's due schedules (see DueReads). Occurrences this process knows to be held (claimed
   * here, or found claimed) are left out until the lease's end without a store read, for
   * OWN_HOLD_MS / LEARNED_HOLD_MS at most, so a release through another process shows here within
   * that time.
   */
  private async dueSchedules(budgetId: string, now: Date): Promise<Schedule[]> {
    const schedules = await this.reads.forDue(budgetId, now);
    return schedules.filter(
      (s) => s.next_due_at.getTime() <= now.getTime() && !this.memory.isHeld(s._id, s.next_due_at, now),
    );
  }

  /** The due occurrences a "next due" claim works from, in claim order, without those held as for dueSchedules. */
  private async claimQueue(
    budgetId: string,
    now: Date,
    fresh: boolean,
  ): Promise<{ queue: QueuedOccurrence[]; startedAt: number }> {
    const { ordered, startedAt } = await this.reads.forClaims(budgetId, now, fresh);
    // Stops at CLAIM_TRIES: a reused read of a large backlog is thousands long, and a claimer looks at its open head only.
    const queue: QueuedOccurrence[] = [];
    const wall = Date.now();
    for (const o of ordered) {
      if (queue.length >= CLAIM_TRIES) break;
      if (!this.memory.isHeldKey(o.key, now, wall)) queue.push(o);
    }
    return { queue, startedAt };
  }

  /**
   * The schedule (as the due read found it) when its occurrence is open (not held by an active
   * claim, not advanced), else null. An advanced occurrence whose apply has not landed (or was
   * lost in a crash) is applied here, so the schedule shows its next occurrence again.
   */
  private async openSchedule(s: Schedule, now: Date): Promise<Schedule | null> {
    const latest = await this.repo.latestClaim(s._id, s.next_due_at);
    const status = latest ? claimStatus(latest, now) : null;
    if (latest && status === 'active') this.memory.noteHeld(latest.claim, LEARNED_HOLD_MS);
    if (latest?.end?.kind === 'advanced') await this.heal(latest.end);
    return status === 'active' || status === 'advanced' ? null : s;
  }

  /** Applies the advance an `advanced` end recorded (guarded: a no-op once applied); the schedule as it leaves it, or null. */
  private async heal(end: NonNullable<ClaimState['end']>): Promise<Schedule | null> {
    const advance = await this.repo.advanceOfEnd(end);
    return advance ? this.repo.applyAdvanceReturning(advance) : null;
  }

  /**
   * Claims one due occurrence: of the given schedule, or the budget's oldest claimable one.
   * Concurrent "next due" claimers start at different occurrences of the first page instead of
   * all racing for the oldest one.
   */
  async claim(budgetId: string, body: ClaimBody): Promise<ClaimResult> {
    const since = this.pauses.now();
    if (body.schedule_id)
      // Read now with its pause row: its own pause is known; an apply's answer (a heal) is not.
      return this.claimSchedule(await this.scheduleInBudget(budgetId, body.schedule_id), body.lease_seconds, {
        since,
        pauseKnown: true,
      });
    const now = this.clock();
    const rank = this.claiming.get(budgetId) ?? 0;
    this.claiming.set(budgetId, rank + 1);
    try {
      const first = await this.claimQueue(budgetId, now, false);
      try {
        return await this.claimFirstOpen(budgetId, body, spread(first.queue, rank), since);
      } catch (err) {
        // Nothing open in a reused read: "nothing is due" is only answered from a read at most CLAIM_READ_MAX_AGE_MS old.
        if (
          !(err instanceof AppError && err.code === 'occurrence_not_due') ||
          first.startedAt >= Date.now() - CLAIM_READ_MAX_AGE_MS
        )
          throw err;
        return await this.claimFirstOpen(
          budgetId,
          body,
          spread((await this.claimQueue(budgetId, this.clock(), true)).queue, rank),
          since,
        );
      }
    } finally {
      const left = (this.claiming.get(budgetId) ?? 1) - 1;
      if (left > 0) this.claiming.set(budgetId, left);
      else this.claiming.delete(budgetId);
    }
  }

  private async claimFirstOpen(
    budgetId: string,
    body: ClaimBody,
    order: QueuedOccurrence[],
    since: number,
  ): Promise<ClaimResult> {
    for (const { schedule: s } of order) {
      if (this.memory.isHeld(s._id, s.next_due_at, this.clock())) continue;
      // The schedule as the due read found it: if its occurrence was taken or advanced since, it loses at the insert.
      if (s.budget_id !== budgetId) continue;
      try {
        return await this.claimSchedule(s, body.lease_seconds, { since });
      } catch (err) {
        // Another claimer got there first: try the next one.
        if (err instanceof AppError && (err.code === 'occurrence_claimed' || err.code === 'occurrence_not_due'))
          continue;
        throw err;
      }
    }
    throw conflict('occurrence_not_due', 'no occurrence of this budget is due and unclaimed');
  }

  /**
   * Claims the schedule's current occurrence. Most occurrences were never claimed, so attempt 0 is
   * inserted without reading first; only a refusal reads the occurrence's claims and decides (held,
   * advanced, or expired: then its expiry is recorded and the next attempt inserted). Readers leave
   * the occurrence out while the claim holds, and it is due again by itself the instant the lease
   * runs out. An advanced occurrence whose apply has not landed is applied, and the schedule's next
   * occurrence claimed if it is due (`healed` bounds that to once per call).
   */
  private async claimSchedule(
    s: Schedule,
    leaseSeconds: number,
    opts: { since: number; healed?: boolean; pauseKnown?: boolean },
  ): Promise<ClaimResult> {
    const now = this.clock();
    if (s.paused) throw paused();
    const occ = dueOccurrence(timingOf(s), s.next_due_at, now);
    if (!occ)
      throw conflict('occurrence_not_due', `the next occurrence is due at ${iso(s.next_due_at)}`, {
        next_due_at: iso(s.next_due_at),
      });
    const draft = (attempt: number): ScheduleClaim => {
      const id = claimId(s._id, s.next_due_at, attempt);
      return {
        _id: id,
        schedule_id: s._id,
        budget_id: s.budget_id,
        base_due_at: s.next_due_at,
        attempt,
        due_at: occ.due_at,
        skipped: occ.skipped,
        claim_token: ids.claimToken(id),
        claimed_at: now,
        lease_expires_at: new Date(now.getTime() + leaseSeconds * 1000),
        held_entry: false,
      };
    };
    let claim = draft(0);
    if (!(await this.repo.insertClaim(claim))) {
      const latest = await this.repo.latestClaim(s._id, s.next_due_at);
      if (!latest) throw conflict('occurrence_claimed', 'another holder claimed this occurrence first');
      const status = claimStatus(latest, now);
      if (status === 'active') {
        this.memory.noteHeld(latest.claim, LEARNED_HOLD_MS);
        throw conflict('occurrence_claimed', 'this occurrence is already claimed', {
          lease_expires_at: iso(latest.claim.lease_expires_at),
        });
      }
      if (latest.end?.kind === 'advanced') {
        const moved = await this.heal(latest.end);
        if (moved && !opts.healed && moved.next_due_at.getTime() > s.next_due_at.getTime())
          return this.claimSchedule(moved, leaseSeconds, { since: opts.since, healed: true });
        throw conflict('occurrence_not_due', 'this occurrence was just advanced');
      }
      if (!latest.end) {
        // Expired by the clock but not yet recorded: record it, unless its holder's advance got there first.
        const { end } = await this.repo.endClaim(latest.claim, 'expired', now, { reason: 'superseded_after_expiry' });
        if (end.kind === 'advanced') throw conflict('occurrence_not_due', 'this occurrence was just advanced');
      }
      claim = draft(latest.claim.attempt + 1);
      if (!(await this.repo.insertClaim(claim)))
        throw conflict('occurrence_claimed', 'another holder claimed this occurrence first');
    }
    // A schedule from a due read (possibly reused) or an apply's answer may have been paused since:
    // the budget's pause rows from a read that began after this call did (shared with the budget's
    // other claims), so a pause answered before this call began is seen.
    if (!opts.pauseKnown && (await this.pauses.pausesOf(s.budget_id, opts.since)).has(s._id)) {
      // Paused before this claim began: the claim is ended at once and the occurrence left alone.
      await this.repo.endClaim(claim, 'released', now, { reason: 'schedule_paused' });
      throw paused();
    }
    this.memory.noteHeld(claim, OWN_HOLD_MS);
    this.memory.remember(claim, s);
    return { claim, schedule: s, skipped_at_least: occ.skipped_at_least };
  }

  /**
   * The schedule and the claim the token names, with its end, read at once (the token carries
   * the claim id, so these are point reads).
   */
  private async readForEnd(budgetId: string, scheduleId: string, token: string) {
    const [s, state] = await Promise.all([this.scheduleInBudget(budgetId, scheduleId), this.repo.claimByToken(token)]);
    return { s, state };
  }

  /** The holder's claim on this schedule, checked against the request, or the spec's 409. */
  private async heldClaim(
    s: Schedule,
    held: ClaimState | null,
    dueAt: Date,
    op: 'advance' | 'release',
  ): Promise<ClaimState> {
    if (!held || held.claim.schedule_id !== s._id) {
      if (op === 'advance' && !(await this.activeClaim(s)))
        throw conflict('claim_required', 'no claim on this schedule holds this token; claim the occurrence first');
      throw conflict('claim_mismatch', 'this token holds no claim on this schedule');
    }
    checkDueAt(held.claim, dueAt);
    return held;
  }

  private refuseEnded(held: ClaimState, now: Date, op: 'advance' | 'release'): void {
    const status = claimStatus(held, now);
    const lease = { lease_expires_at: iso(held.claim.lease_expires_at) };
    if (status === 'expired')
      throw conflict(
        'claim_expired',
        'the lease of this claim has expired; the occurrence went back to the due queue',
        lease,
      );
    if (status === 'advanced') throw conflict('claim_mismatch', 'this claim already advanced the schedule');
    if (status === 'released' && op === 'advance')
      throw conflict('claim_required', 'this claim was released; claim the occurrence again');
  }

  /**
   * `active` is the claim holding the schedule's current occurrence after the advance (the schedule
   * object shows it). The decision is the claim's end, inserted with the advance record in it; the
   * guarded apply then moves the schedule to its next occurrence, which is what makes it due
   * again. A claim made here lately is advanced from memory: its claim and the schedule it was
   * taken from are in hand, so the end goes out at once, then the apply (two writes, no read).
   * Anything else (another process's claim, an older one, an end already recorded) reads first.
   */
  async advance(
    budgetId: string,
    scheduleId: string,
    body: AdvanceBody,
  ): Promise<{ schedule: Schedule; already_advanced: boolean; active: ScheduleClaim | null }> {
    const since = this.pauses.now();
    const made = this.memory.madeFor(body.claim_token);
    if (made && made.claim.schedule_id === scheduleId && made.schedule.budget_id === budgetId) {
      const { claim, schedule: s } = made;
      checkDueAt(claim, body.due_at);
      const now = this.clock();
      if (now.getTime() < claim.lease_expires_at.getTime()) {
        const advance = advanceOf(s, claim, body, now);
        const { won } = await this.repo.endClaim(claim, 'advanced', now, { note: body.note, advance });
        if (won) {
          this.memory.advanced(claim);
          // The schedule in memory is as claimed: the answer shows it paused since (a read begun after this call).
          const pausedAt = (await this.pauses.pausesOf(s.budget_id, since)).get(s._id);
          return this.applyFresh(withPause(s, pausedAt ? { paused_at: pausedAt } : null), advance);
        }
      }
    }
    const { s, state } = await this.readForEnd(budgetId, scheduleId, body.claim_token);
    const held = await this.heldClaim(s, state, body.due_at, 'advance');
    const now = this.clock();
    if (held.end?.kind === 'advanced') return this.advancedBefore(s, { claim: held.claim, end: held.end }, body, now);
    this.refuseEnded(held, now, 'advance');
    const advance = advanceOf(s, held.claim, body, now);
    const { won, end } = await this.repo.endClaim(held.claim, 'advanced', now, { note: body.note, advance });
    if (!won) {
      if (end.kind === 'advanced') return this.advancedBefore(s, { claim: held.claim, end }, body, now);
      this.refuseEnded({ claim: held.claim, end }, now, 'advance');
      throw conflict('claim_mismatch', 'this claim has ended');
    }
    return this.applyDecided(s, advance);
  }

  /**
   * The claim's end says it advanced: a repeat (answered `already_advanced`), or an end written by
   * the code before this one that stopped before its advance record: that record is written now.
   */
  private async advancedBefore(
    s: Schedule,
    held: { claim: ScheduleClaim; end: NonNullable<ClaimState['end']> },
    body: AdvanceBody,
    now: Date,
  ) {
    const recorded = await this.repo.advanceOfEnd(held.end);
    if (recorded) {
      if (recorded.claim_token !== held.claim.claim_token)
        throw conflict('claim_mismatch', 'another claim advanced this occurrence');
      return this.repeatAdvance(recorded);
    }
    const { won, advance } = await this.repo.insertLegacyAdvance(advanceOf(s, held.claim, body, now));
    return won ? this.applyDecided(s, advance) : this.repeatAdvance(advance);
  }

  /** Applies an advance this call decided, `s` being the schedule as read before the decision. */
  private async applyDecided(s: Schedule, advance: ScheduleAdvance) {
    if (s.next_due_at.getTime() === advance.base_due_at.getTime()) return this.applyFresh(s, advance);
    // The schedule moved under the claim (resumed while held): the guarded apply leaves it be.
    const moved = await this.applied(advance);
    return { schedule: moved, already_advanced: false as const, active: await this.activeClaim(moved) };
  }

  /**
   * Applies a just-decided advance to `s`, the schedule as read at the advanced occurrence. When it
   * is still there, the guarded update leaves exactly `appliedTo(s, advance)` (only a resume changes
   * a schedule otherwise, and the guard refuses it; a pause is a row of its own, carried by `s`), so
   * that is the answer. Otherwise the apply guarded on the occurrence alone answers what the store
   * holds (paused by the code before pause rows, say); when the schedule was not at the occurrence,
   * see catchUp. Should
   * the apply fail, the answer is an error and the holder's repeat (same token and due_at) applies
   * it; so does any reader that finds the occurrence advanced (see heal).
   */
  private async applyFresh(s: Schedule, advance: ScheduleAdvance) {
    if (await this.repo.applyAdvanceIfOpen(advance))
      return { schedule: appliedTo(s, advance), already_advanced: false as const, active: null };
    const returned = await this.repo.applyAdvanceReturning(advance);
    const schedule = returned
      ? withPause(returned, s.paused && s.paused_at ? { paused_at: s.paused_at } : null)
      : await this.catchUp(advance);
    return { schedule, already_advanced: false as const, active: null };
  }

  /**
   * The schedule after `advance` when its guarded apply found the schedule elsewhere: still behind
   * (a claim taken by an older release from the queue entry an earlier advance wrote
   * beside an apply that had not landed), so the recorded advances in between are applied first,
   * in order; or moved past it (resumed), then it is answered as it stands.
   */
  private async catchUp(advance: ScheduleAdvance): Promise<Schedule> {
    for (let step = 0; step < 10; step++) {
      const s = await this.repo.get(advance.schedule_id);
      if (!s) throw errors.notFound('schedule_not_found', `schedule ${advance.schedule_id} is gone`);
      if (s.next_due_at.getTime() >= advance.base_due_at.getTime()) {
        if (s.next_due_at.getTime() > advance.base_due_at.getTime()) return s;
        await this.repo.applyAdvance(advance);
        continue;
      }
      const behind = await this.repo.getAdvance(s._id, s.next_due_at);
      if (!behind) return s;
      await this.repo.applyAdvance(behind);
    }
    return this.applied(advance);
  }

  /** A repeated advance: applies the recorded one again (harmless; it repairs a crash between decision and apply). */
  private async repeatAdvance(
    a: ScheduleAdvance,
  ): Promise<{ schedule: Schedule; already_advanced: true; active: ScheduleClaim | null }> {
    const s = await this.applied(a);
    return { schedule: s, already_advanced: true, active: await this.activeClaim(s) };
  }

  private async applied(a: ScheduleAdvance): Promise<Schedule> {
    await this.repo.applyAdvance(a);
    const s = await this.repo.get(a.schedule_id);
    if (!s) throw errors.notFound('schedule_not_found', `schedule ${a.schedule_id} is gone`);
    return s;
  }

  /** `active` as for advance. The occurrence is due again as soon as the end is recorded. */
  async release(
    budgetId: string,
    scheduleId: string,
    body: ReleaseBody,
  ): Promise<{ schedule: Schedule; active: ScheduleClaim | null }> {
    const { s, state } = await this.readForEnd(budgetId, scheduleId, body.claim_token);
    const held = await this.heldClaim(s, state, body.due_at, 'release');
    const now = this.clock();
    if (held.end?.kind === 'released') return { schedule: s, active: await this.activeClaim(s) };
    this.refuseEnded(held, now, 'release');
    const { won, end } = await this.repo.endClaim(held.claim, 'released', now, {
      note: body.note,
      reason: 'released_by_holder',
    });
    if (!won && end.kind !== 'released') this.refuseEnded({ claim: held.claim, end }, now, 'release');
    this.memory.released(held.claim);
    return { schedule: s, active: won ? null : await this.activeClaim(s) };
  }
}

function paused(): AppError {
  return conflict('occurrence_not_due', 'the schedule is paused', { paused: true });
}

function checkDueAt(claim: ScheduleClaim, dueAt: Date): void {
  if (claim.due_at.getTime() !== dueAt.getTime()) {
    throw conflict('due_at_mismatch', `this claim holds the occurrence due at ${iso(claim.due_at)}`, {
      claimed_due_at: iso(claim.due_at),
    });
  }
}

/** The advance record of `claim` on `s` (at the claimed occurrence or later). */
function advanceOf(s: Schedule, claim: ScheduleClaim, body: AdvanceBody, now: Date): ScheduleAdvance {
  const next = nextOccurrence(timingOf(s), claim.due_at);
  if (!next) throw errors.internal('internal_error', 'the schedule has no occurrence after this one');
  return {
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
  };
}
