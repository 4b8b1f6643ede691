import { orderQueue, type QueuedOccurrence } from './due-queue';
import type { Schedule } from './repository';

/** How old a due read a "next due" claim may reuse. */
export const CLAIM_READ_MAX_AGE_MS = 1000;

interface DueRead {
  startedAt: number;
  /** The clock of the caller that started it (the read's bound). */
  now: Date;
  done: boolean;
  result: Promise<Schedule[]>;
  /** The occurrences in claim order as of `now`, worked out once for the claimers sharing the read. */
  ordered?: QueuedOccurrence[];
}

/**
 * One process's due reads per budget (docs/schedules.md#due-queue). Concurrent callers share one
 * read in flight, and "next due" claims also reuse a read up to CLAIM_READ_MAX_AGE_MS old:
 * FerretDB decodes every schedule of the budget for it, and 20 agents claiming would otherwise
 * each pay for it. A schedule read early loses at the claim insert if its occurrence was taken or
 * advanced since; one due since shows up in the next read.
 */
export class DueReads {
  private readonly inFlight = new Map<string, DueRead>();
  /** The last read of each budget that landed (see forClaims). */
  private readonly landed = new Map<string, DueRead>();

  constructor(private readonly read: (budgetId: string, now: Date) => Promise<Schedule[]>) {}

  /** The budget's due schedules for `due`: a read in flight is shared, none is reused. */
  forDue(budgetId: string, now: Date): Promise<Schedule[]> {
    return this.shared(budgetId, now, 0).result;
  }

  /**
   * The due occurrences a "next due" claim works from, in claim order. While a newer read is in
   * flight, claimers go on with the last one that landed, if it began at most
   * 2 × CLAIM_READ_MAX_AGE_MS ago, instead of all waiting for the store.
   */
  async forClaims(budgetId: string, now: Date): Promise<QueuedOccurrence[]> {
    const fresh = this.shared(budgetId, now, CLAIM_READ_MAX_AGE_MS);
    const last = this.landed.get(budgetId);
    const read = !fresh.done && last && last.startedAt >= Date.now() - 2 * CLAIM_READ_MAX_AGE_MS ? last : fresh;
    const schedules = await read.result;
    // Ordered once per read: a cron schedule far behind costs up to 1000 evaluations, and 20 claimers share the read.
    read.ordered ??= orderQueue(schedules, read.now);
    return read.ordered;
  }

  private shared(budgetId: string, now: Date, maxAgeMs: number): DueRead {
    let read = this.inFlight.get(budgetId);
    if (!read || (read.done && read.startedAt < Date.now() - maxAgeMs)) {
      const fresh: DueRead = { startedAt: Date.now(), now, done: false, result: this.read(budgetId, now) };
      const forget = () => {
        if (this.inFlight.get(budgetId) === fresh) this.inFlight.delete(budgetId);
      };
      fresh.result.then(
        () => {
          fresh.done = true;
          this.landed.set(budgetId, fresh);
          setTimeout(forget, CLAIM_READ_MAX_AGE_MS).unref();
          setTimeout(() => this.landed.get(budgetId) === fresh && this.landed.delete(budgetId), 2 * CLAIM_READ_MAX_AGE_MS).unref();
        },
        forget,
      );
      this.inFlight.set(budgetId, fresh);
      read = fresh;
    }
    return read;
  }
}
