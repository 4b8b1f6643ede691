import { BoundedCache } from '../platform/cache/bounded-cache';

/** Paused schedule id → when it was paused: a budget's pause rows as one read found them. */
export type BudgetPauses = ReadonlyMap<string, Date>;

/** Budgets whose last read is kept; a read is useful only to callers that began before it did. */
const MAX_BUDGETS = 1000;
const KEEP_MS = 5000;

/**
 * Reads of a budget's pause rows, shared by the claims and advances of this process. A caller
 * that began at `since` needs a read that began after it (it then sees every pause answered
 * before the caller began); any such read serves, its own or one another caller started
 * meanwhile, so the claims of a busy budget share their reads instead of adding one query each.
 */
export class PauseReads {
  private readonly latest: BoundedCache<{ startedAt: number; rows: Promise<BudgetPauses> }>;

  constructor(
    private readonly fetch: (budgetId: string) => Promise<BudgetPauses>,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.latest = new BoundedCache(MAX_BUDGETS, KEEP_MS, () => Math.floor(this.clock()));
  }

  /** A monotonic instant to hand back as `since`: when the caller began. */
  now(): number {
    return this.clock();
  }

  /** The budget's pauses from a read that began after `since` (strictly: same-instant reads may predate it). */
  pausesOf(budgetId: string, since: number): Promise<BudgetPauses> {
    const last = this.latest.get(budgetId);
    if (last && last.startedAt > since) return last.rows;
    const entry = { startedAt: this.clock(), rows: this.fetch(budgetId) };
    this.latest.set(budgetId, entry);
    entry.rows.catch(() => {
      if (this.latest.get(budgetId) === entry) this.latest.delete(budgetId);
    });
    return entry.rows;
  }
}
