import { claimIdOfToken, type Schedule, type ScheduleClaim } from './repository';

/** How long a process leaves out an occurrence it claimed, or found claimed, without asking the store. */
export const OWN_HOLD_MS = 10_000;
export const LEARNED_HOLD_MS = 5_000;
/** How long a claim made here answers its advance from memory. */
export const MADE_HERE_MS = 10_000;
/** Past this many remembered holds, expired ones are dropped on the next note. */
const PRUNE_AT = 512;

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

const occurrenceOf = (scheduleId: string, base: Date) => `${scheduleId}|${base.getTime()}`;

/**
 * What one API process knows about claims without asking the store: occurrences held (so its
 * claimers and `due` skip them without a read) and claims it made (so their advance needs no
 * read). Never a decision: a stale memory costs a read or a refused insert, and its bounds are
 * how late another process's release shows here (docs/schedules.md#due-queue).
 */
export class ClaimMemory {
  private readonly held = new Map<string, Held>();
  private readonly made = new Map<string, MadeHere>();

  noteHeld(claim: ScheduleClaim, forMs: number): void {
    if (this.held.size > PRUNE_AT) this.prune();
    this.held.set(occurrenceOf(claim.schedule_id, claim.base_due_at), { leaseEnd: claim.lease_expires_at.getTime(), until: Date.now() + forMs });
  }

  /** True while a lease this process knows of holds the occurrence (by the service clock `now`). */
  isHeld(scheduleId: string, base: Date, now: Date): boolean {
    const h = this.held.get(occurrenceOf(scheduleId, base));
    return h !== undefined && h.leaseEnd > now.getTime() && h.until >= Date.now();
  }

  prune(): void {
    const wall = Date.now();
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
    this.held.delete(occurrenceOf(claim.schedule_id, claim.base_due_at));
  }
}
