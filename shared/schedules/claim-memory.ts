import { occurrenceKey } from './due-queue';
import { claimIdOfToken, type Schedule, type ScheduleClaim } from './repository';

/** How long a process leaves out an occurrence it claimed, or found claimed, without asking the store. */
export const OWN_HOLD_MS = 10_000;
export const LEARNED_HOLD_MS = 5_000;
/** How long a claim made here answers its advance from memory. */
export const MADE_HERE_MS = 10_000;
/**
 * Expired holds are dropped at most this often: a sweep walks every remembered hold, and at a few
 * hundred claims a second (thousands remembered) sweeping on every claim cost more than the claim.
 */
const PRUNE_EVERY_MS = 1000;

interface Held {
  /** The lease's end by the service clock, and until when (wall clock) this process trusts it. */
  leaseEnd: number;
  until: number;
}

export interface MadeHere {
  claim: ScheduleClaim;
  /** The schedule as the claim was taken from: at the claimed occurrence. */
  schedule: Schedule;
  at: number;
}

/**
 * What one API process knows about claims without asking the store: occurrences held (so its
 * claimers and `due` skip them without a read) and claims it made (so their advance needs no
 * read). Never a decision: a stale memory costs a read or a refused insert, and its bounds are
 * how late another process's release shows here (docs/schedules.md#due-queue).
 */
export class ClaimMemory {
  private readonly held = new Map<string, Held>();
  private readonly made = new Map<string, MadeHere>();
  private nextPruneAt = 0;

  noteHeld(claim: ScheduleClaim, forMs: number): void {
    this.prune();
    this.held.set(occurrenceKey(claim.schedule_id, claim.base_due_at), {
      leaseEnd: claim.lease_expires_at.getTime(),
      until: Date.now() + forMs,
    });
  }

  /** True while a lease this process knows of holds the occurrence (by the service clock `now`). */
  isHeld(scheduleId: string, base: Date, now: Date): boolean {
    return this.isHeldKey(occurrenceKey(scheduleId, base), now, Date.now());
  }

  /** isHeld by the occurrence's key; `wall` is Date.now(), taken once by a caller checking many. */
  isHeldKey(key: string, now: Date, wall: number): boolean {
    const h = this.held.get(key);
    return h !== undefined && h.leaseEnd > now.getTime() && h.until >= wall;
  }

  /** Drops holds it no longer trusts (at most once per PRUNE_EVERY_MS; isHeld never answers from them anyway). */
  private prune(): void {
    const wall = Date.now();
    if (wall < this.nextPruneAt) return;
    this.nextPruneAt = wall + PRUNE_EVERY_MS;
    for (const [key, h] of this.held) if (h.until < wall) this.held.delete(key);
  }

  remember(claim: ScheduleClaim, schedule: Schedule): void {
    const wall = Date.now();
    // Insertion order is age order: drop from the front until a fresh one.
    for (const [id, m] of this.made) {
      if (m.at >= wall - MADE_HERE_MS) break;
      this.made.delete(id);
    }
    this.made.set(claim._id, { claim, schedule, at: wall });
  }

  /** A claim made here lately that `token` names, with the schedule it was taken from. */
  madeFor(token: string): MadeHere | undefined {
    const id = claimIdOfToken(token);
    const made = id === null ? undefined : this.made.get(id);
    return made && made.claim.claim_token === token && made.at >= Date.now() - MADE_HERE_MS ? made : undefined;
  }

  /** The claim was advanced: nothing more to answer from memory (its occurrence stays left out). */
  advanced(claim: ScheduleClaim): void {
    this.made.delete(claim._id);
  }

  /** The claim was released: its occurrence is open again. */
  released(claim: ScheduleClaim): void {
    this.made.delete(claim._id);
    this.held.delete(occurrenceKey(claim.schedule_id, claim.base_due_at));
  }
}
