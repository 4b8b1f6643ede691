import { BoundedCache } from '../platform/cache/bounded-cache';
import { graphChanges, type RunnableWorkflow } from '../workflows/index';
import { accessChanges, type GroupAccess } from '../workspaces/index';

/**
 * Bearers are small. A graph may be as large as a definition's 256 KiB body, and the pairs of
 * budget and workflow triggered within one window are few: fewer of them bound the memory.
 */
const MAX_BEARERS = 1000;
const MAX_GRAPHS = 200;

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
  /** Resolutions of bearers, settled or in flight (concurrent requests share one). */
  private readonly bearers: BoundedCache<Promise<GroupAccess | null>>;
  private readonly runnables: BoundedCache<RunnableWorkflow>;
  /** Accesses served from `bearers`: their budget may be up to `ttlMs` old. */
  private readonly served = new WeakSet<object>();
  private seen = -1;

  constructor(ttlMs: number, clock?: () => number) {
    const on = ttlMs > 0;
    this.bearers = new BoundedCache(on ? MAX_BEARERS : 0, ttlMs, clock);
    this.runnables = new BoundedCache(on ? MAX_GRAPHS : 0, ttlMs, clock);
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

  /**
   * The bearer for `key` (sha256 of the token): kept from an earlier request, shared with a
   * request resolving it now, or resolved by `resolve` and kept while it is granted (null, a
   * refusal, and a failure are dropped as soon as they settle; so is a resolution this process
   * made a change during). Concurrent requests of an agent population cost one resolution.
   */
  async bearer(key: string, resolve: () => Promise<GroupAccess | null>): Promise<GroupAccess | null> {
    const epoch = this.epoch();
    const kept = this.bearers.get(key);
    if (kept) {
      const access = await kept;
      if (access) this.served.add(access);
      return access;
    }
    const pending = resolve();
    this.bearers.set(key, pending);
    const drop = () => {
      if (this.bearers.get(key) === pending) this.bearers.delete(key);
    };
    pending.then((access) => (!access || this.epoch() !== epoch ? drop() : undefined), drop);
    return pending;
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

  /** Keeps the graph, unless this process changed something since `epoch` (the reads may predate it). */
  keepRunnable(budgetId: string, workflowId: string, wf: RunnableWorkflow, epoch: number): void {
    if (this.epoch() === epoch) this.runnables.set(`${budgetId}/${workflowId}`, wf);
  }
}
