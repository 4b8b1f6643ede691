import { Counter, Gauge } from 'prom-client';
import { BoundedCache } from '../platform/cache/bounded-cache';
import { logger } from '../platform/logger/index';
import { registry } from '../platform/metrics/registry';
import type { RunEngine } from './engine';
import type { RunRepository } from './repository';
import { recordAfterWrites } from './run-writes';
import { isTerminal, type RunRecord } from './types';

export interface RunWaitLimits {
  /** Clients of this process waiting at once; past it a wait answers at once (the client polls). */
  maxWaiters: number;
  /** The same per agent group, so one group cannot take every slot. */
  maxWaitersPerOwner: number;
  /** When the engine cannot watch a run, the watch reads the store this often (one read for all its waiters). */
  storePollMs: number;
  /**
   * A run read without a wait is answered from this process's last read of it for this long while
   * a watch covers it (the watch replaces it with the terminal record the moment the run ends).
   */
  freshMs: number;
  /**
   * How long a record a trigger of this process inserted stays ready for the run's first read
   * here. Not a freshness bound: an inserted record is served only once a watch knows the run
   * had not ended, so its age changes nothing but how long an agent may take to ask.
   */
  insertedMs: number;
}

export const DEFAULT_RUN_WAIT_LIMITS: RunWaitLimits = {
  maxWaiters: 2000,
  maxWaitersPerOwner: 200,
  storePollMs: 1000,
  freshMs: 1000,
  insertedMs: 30_000,
};

/** The promise's value, or false when it takes longer than ms. */
async function within(promise: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a wait ended with: the terminal record, the deadline or the client leaving, or no room to wait. */
export type WaitOutcome = { ended: RunRecord } | { ended: null; refused: boolean };

const waitersGauge = new Gauge({
  name: 'webhook_run_waiters',
  help: 'Clients of this process waiting for a run to end (GET /runs/{id}?wait_seconds)',
  registers: [registry],
});
const endsCounter = new Counter({
  name: 'webhook_run_watch_ends_total',
  help: "Run ends learned by this process's watches: rebuilt from the workflow's write times (no store read) or read from the store",
  labelNames: ['source'] as const,
  registers: [registry],
});
const watchesGauge = new Gauge({
  name: 'webhook_run_watches',
  help: 'Runs this process watches for their end, one watch shared by all waiters of a run',
  registers: [registry],
});

interface Waiter {
  owner: string;
  done(record: RunRecord): void;
}

interface Watch {
  waiters: Set<Waiter>;
  stop: AbortController;
  /** Keeps a watch without waiters alive while its run is being polled. */
  keep?: NodeJS.Timeout;
  /** The run as this process last knew it before its end (inserted here, or read); the end is rebuilt from it. */
  before?: RunRecord;
  /** Whether the record it serves is the one a trigger inserted (not read since). */
  inserted?: boolean;
  /** true once the watch knows the run had not ended after it began (engine or store); false when it ended or stopped. */
  watching: Promise<boolean>;
  settle(watching: boolean): void;
}

/**
 * The waits of one process. One watch per awaited run, whatever the number of its waiters: it
 * learns the end from the engine (a long poll of the run's workflow, no store read) and wakes
 * every waiter with the terminal record. That record is rebuilt without a store read when the
 * workflow closed with the times of its own writes and this process holds the run as it was
 * before them (inserted here by the trigger, or read); otherwise the store is read once. Any API
 * process can watch any run, so a waiter needs nothing from the process that started the run. A
 * watch stops when its last waiter leaves (deadline or disconnect).
 */
export class RunWaits {
  private readonly watches = new Map<string, Watch>();
  private readonly perOwner = new Map<string, number>();
  private total = 0;
  /** Runs as last read, served for freshMs while a watch covers them. */
  private readonly recent: BoundedCache<RunRecord>;
  /** Runs this process's triggers inserted, not yet read here: their first read needs no store read. */
  private readonly inserted: BoundedCache<RunRecord>;

  constructor(
    private readonly ports: { runs: Pick<RunRepository, 'get'>; engine: Pick<RunEngine, 'awaitEnd'> },
    private readonly limits: RunWaitLimits = DEFAULT_RUN_WAIT_LIMITS,
  ) {
    this.recent = new BoundedCache(limits.maxWaiters, limits.freshMs);
    this.inserted = new BoundedCache(limits.maxWaiters, limits.insertedMs);
  }

  /**
   * The run for a reader that does not wait (an agent polling): at most one store read per run
   * and freshMs in this process, however often it is asked. A run not yet terminal is served from
   * that read only while this process watches it, so its end shows the moment the watch learns it;
   * a status between (queued → running) may show up to freshMs late.
   */
  async read(runId: string): Promise<RunRecord | null> {
    const held = await this.covered(runId);
    if (held) return held;
    if (this.adoptInserted(runId)) {
      const fresh = await this.covered(runId);
      if (fresh) return fresh;
    }
    const record = await this.ports.runs.get(runId);
    if (!record) return null;
    this.hold(runId, record);
    return record;
  }

  /**
   * The run for a reader about to wait for its end (a GET with wait_seconds): as read(), except
   * that a record this process's trigger inserted is taken as it is, without waiting for the
   * watch's first answer. The waiter only uses it to see whose run it is and that it is open;
   * had the run already ended, that same watch brings the end to the waiter.
   */
  async readToWait(runId: string): Promise<RunRecord | null> {
    return (!this.recent.get(runId) && this.adoptInserted(runId)) || this.read(runId);
  }

  /**
   * The record this process's trigger inserted, once: kept under a watch that knows it was
   * inserted (not read), or null when there is none or no watch may be opened.
   */
  private adoptInserted(runId: string): RunRecord | null {
    const inserted = this.inserted.get(runId);
    if (!inserted) return null;
    this.inserted.delete(runId);
    const watch = this.hold(runId, inserted);
    if (!watch) return null;
    watch.inserted = true;
    return inserted;
  }

  /**
   * This process's record of the run when it may serve it: a terminal one, or an open one while
   * a watch covers the run; an inserted one only once the watch knows the run had not ended
   * when it began (the engine's first answer, or the watch's own store read; at most freshMs
   * waited for), and an end found meanwhile is served instead.
   */
  private async covered(runId: string): Promise<RunRecord | null> {
    const hit = this.recent.get(runId);
    if (!hit) return null;
    if (isTerminal(hit.run.status)) return hit;
    const watch = this.watches.get(runId);
    if (!watch) return null;
    // A record read from the store is as fresh as the watch begun after it; an inserted one may
    // be older than the run's end, which the watch's first answer would show.
    if (!watch.inserted) return hit;
    const watching = await within(watch.watching, this.limits.freshMs);
    const now = this.recent.get(runId);
    if (!now) return null;
    return watching || isTerminal(now.run.status) ? now : null;
  }

  /**
   * The record a trigger of this process just inserted: the run's first read here is answered
   * from it (no store read) once a watch covers the run. No watch opens before that read, so a
   * trigger whose run nobody reads here costs nothing more.
   */
  prime(record: RunRecord): void {
    if (!isTerminal(record.run.status)) this.inserted.set(record.run._id, record);
  }

  /** Keeps a record read (or inserted) now: a terminal one for freshMs, an open one while a watch covers it. */
  private hold(runId: string, record: RunRecord): Watch | null {
    if (isTerminal(record.run.status)) {
      this.recent.set(runId, record);
      return null;
    }
    const watch = this.keepWatching(runId);
    if (!watch) return null;
    this.recent.set(runId, record);
    watch.before = record;
    watch.inserted = false;
    return watch;
  }

  /** Ends every watch (the process stops): their waiters answer at their own deadlines or disconnects. */
  close(): void {
    for (const [runId, watch] of [...this.watches]) this.end(runId, watch);
  }

  /** Drops this process's last read of a run (after a change made here, such as a cancel). */
  forget(runId: string): void {
    this.recent.delete(runId);
    this.inserted.delete(runId);
    const watch = this.watches.get(runId);
    if (watch) watch.before = undefined;
  }

  /** Clients waiting now, and runs watched for them. */
  get waiting(): { clients: number; runs: number } {
    return { clients: this.total, runs: this.watches.size };
  }

  /** Starts or prolongs a watch of a polled run; null when this process watches as many runs as it may. */
  private keepWatching(runId: string): Watch | null {
    let watch = this.watches.get(runId);
    if (!watch) {
      if (this.watches.size >= this.limits.maxWaiters) return null;
      watch = this.open(runId);
    }
    const kept = watch;
    clearTimeout(kept.keep);
    kept.keep = setTimeout(() => {
      kept.keep = undefined;
      if (kept.waiters.size === 0) this.end(runId, kept);
    }, 2 * this.limits.freshMs);
    kept.keep.unref();
    return kept;
  }

  private open(runId: string): Watch {
    let settle!: (watching: boolean) => void;
    const watching = new Promise<boolean>((resolve) => (settle = resolve));
    const watch: Watch = { waiters: new Set(), stop: new AbortController(), watching, settle };
    this.watches.set(runId, watch);
    watchesGauge.inc();
    void this.watch(runId, watch);
    return watch;
  }

  /** Waits up to waitMs (or until signal aborts) for the run's terminal record. */
  until(runId: string, owner: string, waitMs: number, signal: AbortSignal): Promise<WaitOutcome> {
    const held = this.perOwner.get(owner) ?? 0;
    if (this.total >= this.limits.maxWaiters || held >= this.limits.maxWaitersPerOwner)
      return Promise.resolve({ ended: null, refused: true });
    if (signal.aborted) return Promise.resolve({ ended: null, refused: false });
    this.total++;
    this.perOwner.set(owner, held + 1);
    waitersGauge.inc();

    return new Promise<WaitOutcome>((resolve) => {
      const watch = this.watches.get(runId) ?? this.open(runId);
      const leave = (outcome: WaitOutcome) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.release(runId, watch, waiter);
        resolve(outcome);
      };
      const onAbort = () => leave({ ended: null, refused: false });
      const waiter: Waiter = { owner, done: (record) => leave({ ended: record }) };
      const timer = setTimeout(onAbort, waitMs);
      signal.addEventListener('abort', onAbort, { once: true });
      watch.waiters.add(waiter);
    });
  }

  private release(runId: string, watch: Watch, waiter: Waiter): void {
    if (!watch.waiters.delete(waiter)) return;
    this.total--;
    const held = (this.perOwner.get(waiter.owner) ?? 1) - 1;
    if (held > 0) this.perOwner.set(waiter.owner, held);
    else this.perOwner.delete(waiter.owner);
    waitersGauge.dec();
    if (watch.waiters.size === 0 && !watch.keep) this.end(runId, watch);
  }

  private end(runId: string, watch: Watch): void {
    watch.settle(false);
    clearTimeout(watch.keep);
    watch.keep = undefined;
    this.detach(runId, watch);
    watch.stop.abort();
  }

  private detach(runId: string, watch: Watch): void {
    if (this.watches.get(runId) !== watch) return;
    this.watches.delete(runId);
    watchesGauge.dec();
  }

  /** The run ended: its terminal record serves its reads for freshMs and answers every waiter. */
  private wake(runId: string, watch: Watch, record: RunRecord): void {
    this.recent.set(runId, record);
    watch.settle(false);
    for (const waiter of [...watch.waiters]) waiter.done(record);
    this.end(runId, watch);
  }

  /** Learns the run's end (engine first, the store as the fallback) and wakes the watch's waiters. */
  private async watch(runId: string, watch: Watch): Promise<void> {
    const { signal } = watch.stop;
    try {
      try {
        const end = await this.ports.engine.awaitEnd(runId, signal, () => watch.settle(true));
        const rebuilt =
          end.end === 'ended' && end.written && watch.before && recordAfterWrites(watch.before, end.written);
        if (rebuilt && !signal.aborted) {
          endsCounter.inc({ source: 'rebuilt' });
          this.wake(runId, watch, rebuilt);
          return;
        }
      } catch (err) {
        if (signal.aborted) return;
        logger.warn('run watch: the engine could not watch the run; reading the store instead', {
          run_id: runId,
          err: (err as Error).message,
        });
      }
      // 'ended' makes the first read the last; without an engine's word the store is read at intervals.
      for (;;) {
        if (signal.aborted) return;
        const record = await this.ports.runs.get(runId);
        if (record && isTerminal(record.run.status)) {
          endsCounter.inc({ source: 'read' });
          this.wake(runId, watch, record);
          return;
        }
        // Not ended as of this read: the watch covers the run (reads at intervals).
        watch.settle(true);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.limits.storePollMs).unref();
          signal.addEventListener(
            'abort',
            () => {
              clearTimeout(timer);
              resolve();
            },
            { once: true },
          );
        });
      }
    } catch (err) {
      // Its waiters answer at their deadline; the next waiter of this run starts a new watch.
      logger.warn('run watch failed', { run_id: runId, err: (err as Error).message });
      watch.settle(false);
      this.detach(runId, watch);
    }
  }
}
