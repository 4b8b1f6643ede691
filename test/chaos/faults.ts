/**
 * The fault plan: each kind several times at seeded random moments of the load window, their
 * windows free to overlap other kinds (one kind never overlaps itself; the vendor's three
 * misbehaviours share one vendor, so they take turns). Each fault is the real thing on the stack.
 */
import { FAULT_KINDS, type FaultKind, type History } from './history';
import type { Rng } from './rng';
import type { ChaosStack } from './stack';

export interface PlannedFault {
  kind: FaultKind;
  atMs: number;
  /** How long the part stays away (ms), where that applies. */
  downMs: number;
}

/** Down times per kind [min, max] ms: short enough that callers' retries and the healers' bounds span them. */
const DOWN: Record<FaultKind, [number, number]> = {
  worker_kill: [0, 0],
  api_kill: [0, 0],
  postgres_restart: [1500, 6000],
  ferretdb_kill: [500, 4000],
  temporal_restart: [1000, 6000],
  chain_rpc_down: [4000, 15000],
  vendor_5xx: [4000, 12000],
  vendor_timeout: [4000, 12000],
  vendor_reset: [4000, 12000],
  callback_fail: [5000, 20000],
  history_kill: [1000, 8000],
  matching_kill: [1000, 8000],
  frontend_kill: [1000, 8000],
  // Past the membership's failure detection (a few seconds) and the shard handover after it, so
  // the paused host's shards are owned by its peer when it wakes up with stale ownership.
  history_pause: [20000, 45000],
};

/** `perKind` faults of every kind between 10% and 85% of the window, in time order. */
export function planFaults(
  rng: Rng,
  windowMs: number,
  perKind: number,
  kinds: readonly FaultKind[] = FAULT_KINDS,
): PlannedFault[] {
  const plan: PlannedFault[] = [];
  for (const kind of kinds) {
    for (let i = 0; i < perKind; i++) {
      // Spread each kind over the window: one moment per slice, random within it.
      const slice = (windowMs * 0.75) / perKind;
      const [lo, hi] = DOWN[kind];
      plan.push({
        kind,
        atMs: Math.round(windowMs * 0.1 + slice * i + rng.next() * slice),
        downMs: Math.round(rng.between(lo, hi)),
      });
    }
  }
  return plan.sort((a, b) => a.atMs - b.atMs);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the plan against the stack from `t0`, recording each fault's window; resolves when every fault is over and its part back. */
export async function runFaults(
  stack: ChaosStack,
  plan: PlannedFault[],
  history: History,
  rng: Rng,
  t0: number,
  log: (s: string) => void,
): Promise<void> {
  const lanes = new Map<string, Promise<void>>();
  // The vendor's misbehaviours share one vendor; Temporal's host faults and its full restart
  // share the hosts (a restart of every host must not meet one host's restart).
  const lane = (kind: FaultKind) =>
    kind.startsWith('vendor_') ? 'vendor' : kind === 'temporal_restart' || HOST_FAULTS.has(kind) ? 'temporal' : kind;
  const all: Array<Promise<void>> = [];
  const workerPicks = plan.map(() => rng.int(stack.faults.workerCount));
  const hostPicks = plan.map(() => rng.int(2));
  for (const [i, f] of plan.entries()) {
    const key = lane(f.kind);
    const previous = lanes.get(key) ?? Promise.resolve();
    const run = previous.then(async () => {
      const wait = t0 + f.atMs - Date.now();
      if (wait > 0) await sleep(wait);
      const startedAt = Date.now();
      let detail: string;
      try {
        detail = await inject(stack, f, workerPicks[i]!, hostPicks[i]!);
      } catch (err) {
        detail = `failed to inject: ${(err as Error).message.slice(0, 200)}`;
      }
      history.fault({ kind: f.kind, startedAt, endedAt: Date.now(), detail });
      log(`fault ${f.kind} ${detail} (${Math.round((Date.now() - startedAt) / 100) / 10} s)`);
    });
    lanes.set(key, run);
    all.push(run);
  }
  await Promise.all(all);
}

const HOST_FAULTS = new Set<FaultKind>(['history_kill', 'matching_kill', 'frontend_kill', 'history_pause']);

async function inject(stack: ChaosStack, f: PlannedFault, worker: number, host: number): Promise<string> {
  const { faults, vendor, receiver } = stack;
  switch (f.kind) {
    case 'worker_kill':
      faults.killWorker(worker);
      return `SIGKILL worker ${worker}`;
    case 'api_kill':
      faults.killApi();
      await sleep(500);
      await stack.waitHealthy(180_000);
      return 'SIGKILL api, restarted';
    case 'postgres_restart':
      await faults.restartPostgres(f.downMs);
      return `PostgreSQL stopped ${f.downMs} ms`;
    case 'ferretdb_kill':
      await faults.killFerretDb(f.downMs);
      return `FerretDB SIGKILL, down ${f.downMs} ms`;
    case 'temporal_restart':
      return `${await faults.restartTemporal(f.downMs)}, down ${f.downMs} ms, restarted`;
    case 'history_kill':
    case 'matching_kill':
    case 'frontend_kill': {
      if (!faults.killHost) throw new Error(`${f.kind} needs the Temporal cluster (CHAOS_TEMPORAL=cluster)`);
      const name = await faults.killHost(
        f.kind === 'history_kill' ? 'history' : f.kind === 'matching_kill' ? 'matching' : 'frontend',
        host,
        f.downMs,
      );
      return `${name} SIGKILL, down ${f.downMs} ms, restarted`;
    }
    case 'history_pause': {
      if (!faults.pauseHost) throw new Error(`${f.kind} needs the Temporal cluster (CHAOS_TEMPORAL=cluster)`);
      const name = await faults.pauseHost('history', host, f.downMs);
      return `${name} SIGSTOP ${f.downMs} ms, then SIGCONT`;
    }
    case 'chain_rpc_down':
      await faults.chainDown(f.downMs);
      return `RPC refused ${f.downMs} ms`;
    case 'vendor_5xx':
    case 'vendor_timeout':
    case 'vendor_reset':
      vendor.mode = f.kind === 'vendor_5xx' ? '5xx' : f.kind === 'vendor_timeout' ? 'timeout' : 'reset';
      await sleep(f.downMs);
      vendor.mode = 'ok';
      return `vendor ${f.kind.slice(7)} ${f.downMs} ms`;
    case 'callback_fail':
      receiver.failing = true;
      await sleep(f.downMs);
      receiver.failing = false;
      return `receiver 503 ${f.downMs} ms`;
  }
}
