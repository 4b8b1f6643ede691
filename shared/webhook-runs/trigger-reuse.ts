import { BoundedCache } from '../platform/cache/bounded-cache';
import { graphChanges, type RunnableWorkflow } from '../workflows/repository';
import { accessChanges, type GroupAccess } from '../workspaces/repository';

const MAX_ENTRIES = 1000;

/**
 * What this process resolved for webhook triggers and reads, kept `ttlMs`: `agt_` bearers (with
 * the group's budget and workspace) by sha256 of the token, and per budget and workflow the graph
 * a trigger ran once it passed every check (definition, approved version, its pin). Only what was
 * granted is kept; a refusal is resolved again on the next request. A change made in this process
 * (a token revoked, a workflow listed or approved, a version published, a draft edited) drops all
 * of it at once; another process's change is seen when the entries age out. Nothing here guards
 * money: balances and spend are read on every request that needs them.
 */
export class TriggerReuse {
  private readonly bearers: BoundedCache<GroupAccess>;
  private readonly runnables: BoundedCache<RunnableWorkflow>;
  /** Accesses served from `bearers`: their budget may be up to `ttlMs` old. */
  private readonly served = new WeakSet<object>();
  private seen = -1;

  constructor(ttlMs: number, clock?: () => number) {
    const max = ttlMs > 0 ? MAX_ENTRIES : 0;
    this.bearers = new BoundedCache(max, ttlMs, clock);
    this.runnables = new BoundedCache(max, ttlMs, clock);
  }

  /**
   * The count of this process's changes, having dropped everything read before the latest of
   * them: read it before resolving, and hand it to `keep`.
   */
  epoch(): number {
    const now = accessChanges.value + graphChanges.value;
    if (now !== this.seen) {
      this.bearers.clear();
      this.runnables.clear();
      this.seen = now;
    }
    return now;
  }

  /** A bearer kept from an earlier request, or undefined. */
  bearer(key: string): GroupAccess | undefined {
    this.epoch();
    const access = this.bearers.get(key);
    if (access) this.served.add(access);
    return access;
  }

  /** Whether `access` came from `bearer` (its budget's listing may be stale). */
  wasKept(access: object): boolean {
    return this.served.has(access);
  }

  /** A runnable workflow kept for the budget, or undefined. */
  runnable(budgetId: string, workflowId: string): RunnableWorkflow | undefined {
    this.epoch();
    return this.runnables.get(`${budgetId}/${workflowId}`);
  }

  /** Keeps what was resolved, unless this process changed something since `epoch` (the reads may predate it). */
  keepBearer(key: string, access: GroupAccess, epoch: number): void {
    if (this.epoch() === epoch) this.bearers.set(key, access);
  }

  keepRunnable(budgetId: string, workflowId: string, wf: RunnableWorkflow, epoch: number): void {
    if (this.epoch() === epoch) this.runnables.set(`${budgetId}/${workflowId}`, wf);
  }
}
