import { orderQueue, type QueuedOccurrence } from './due-queue';
import type { Schedule } from './repository';

/** How old a due read a "next due" claim may reuse, at least. */
export const CLAIM_READ_MAX_AGE_MS = 1000;
/** ... and at most, however long the read took (below OWN_HOLD_MS, so this process still knows what it claimed from it). */
export const CLAIM_READ_MAX_REUSE_MS = 8000;
/**
 * A read is reused this many times as long as it took (within the bounds above), so reading a
 * budget keeps the store busy a thirteenth of the time at most while reads take under 8 s / 12;
 * past that the 8 s bound holds and the share grows with the read. FerretDB reads every due schedule
 * of the budget (no sort or range pushdown), about 1 s for 4000: with a fixed 1 s reuse a large
 * backlog kept it reading without pause, and with 4× the read's getMores were still half of
 * FerretDB's CPU under 20 claiming agents (bench/schedules.ts; docs/decisions.md). Newly due occurrences
 * sort after a backlog anyway, so a longer reuse delays none that would be claimed sooner.
 */
export const CLAIM_READ_REUSE_PER_READ_TIME = 12;

interface DueRead {
  startedAt: number;
  /** How long the read took, once it landed. */
  tookMs?: number;
  /** The clock of the caller that started it (the read's bound). */
  now: Date;
  done: boolean;
  result: Promise<Schedule[]>;
  /** The occurrences in claim order as of `now`, worked out once for the claimers sharing the read. */
  ordered?: QueuedOccurrence[];
}

/** How long claims may reuse a landed read (docs/schedules.md#due-queue). */
export function reuseMs(tookMs: number): number {
  return Math.min(CLAIM_READ_MAX_REUSE_MS, Math.max(CLAIM_READ_MAX_AGE_MS, CLAIM_READ_REUSE_PER_READ_TIME * tookMs));
}

/** The occurrences a "next due" claim works from, and when the read they come from began (wall clock). */
export interface ClaimRead {
  ordered: QueuedOccurrence[];
  startedAt: number;
}

/**
 * One process's due reads per budget (docs/schedules.md#due-queue). Concurrent callers share one
 * read in flight, and "next due" claims also reuse a landed read for reuseMs(its duration):
 * FerretDB decodes every due schedule of the budget for it, and 20 agents claiming would otherwise
 * each pay for it. A schedule read early loses at the claim insert if its occurrence was taken or
 * advanced since; one due since shows up in the next read (and a claim that finds nothing open in
 * a reused read reads afresh before it answers that nothing is due).
 */
export class DueReads {
  private readonly inFlight = new Map<string, DueRead>();
  /** The last read of each budget that landed (see forClaims). */
  private readonly landed = new Map<string, DueRead>();

  constructor(private readonly read: (budgetId: string, now: Date) => Promise<Schedule[]>) {}

  /** The budget's due schedules for `due`: a read in flight is shared, none is reused. */
  forDue(budgetId: string, now: Date): Promise<Schedule[]> {
    return this.shared(budgetId, now, false).result;
  }

  /**
   * The due occurrences a "next due" claim works from, in claim order. While a newer read is in
   * flight, claimers go on with the last one that landed, if it began at most twice its reuse
   * time ago, instead of all waiting for the store. `fresh`: a read begun now or in flight, none reused.
   */
  async forClaims(budgetId: string, now: Date, fresh = false): Promise<ClaimRead> {
    const current = this.shared(budgetId, now, !fresh);
    const last = this.landed.get(budgetId);
    const read =
      !fresh && !current.done && last && last.startedAt >= Date.now() - 2 * reuseMs(last.tookMs ?? 0) ? last : current;
    const schedules = await read.result;
    // Ordered once per read: a cron schedule far behind costs up to 1000 evaluations, and 20 claimers share the read.
    read.ordered ??= orderQueue(schedules, read.now);
    return { ordered: read.ordered, startedAt: read.startedAt };
  }

  private shared(budgetId: string, now: Date, reuse: boolean): DueRead {
    let read = this.inFlight.get(budgetId);
    if (!read || (read.done && (!reuse || read.startedAt < Date.now() - reuseMs(read.tookMs ?? 0)))) {
      const fresh: DueRead = { startedAt: Date.now(), now, done: false, result: this.read(budgetId, now) };
      const forget = () => {
        if (this.inFlight.get(budgetId) === fresh) this.inFlight.delete(budgetId);
      };
      fresh.result.then(() => {
        fresh.done = true;
        fresh.tookMs = Date.now() - fresh.startedAt;
        this.landed.set(budgetId, fresh);
        const keep = reuseMs(fresh.tookMs);
        setTimeout(forget, keep).unref();
        setTimeout(() => this.landed.get(budgetId) === fresh && this.landed.delete(budgetId), 2 * keep).unref();
      }, forget);
      this.inFlight.set(budgetId, fresh);
      read = fresh;
    }
    return read;
  }
}
