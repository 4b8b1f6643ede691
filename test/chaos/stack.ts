/**
 * The whole service as separate processes on the real servers, as `make dev` runs it
 * (scripts/dev.ts): PostgreSQL with FerretDB in front, the Temporal dev server on a state file,
 * anvil with our token behind a JSON-RPC proxy the soak can cut, the API process, the worker
 * processes, a tool vendor and an HTTPS callback receiver. The harness restarts what a fault
 * killed, and each fault below is the real thing: a SIGKILL, a server stopped, a socket refused.
 */
import { chmodSync, createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Child, spawnTs } from '../../bench/children';
import { startFerretDbOver } from '../../scripts/services/ferretdb';
import { type RunningLocalChain, startLocalChain } from '../../scripts/services/local-chain';
import { CACHE } from '../../scripts/services/paths';
import { startPostgres } from '../../scripts/services/postgres';
import { freePort, portOpen } from '../../scripts/services/process';
import { type RunningTemporal, startTemporalDev } from '../../scripts/services/temporal';
import { ensureTemporalBinaries } from '../../scripts/services/temporal-build';
import { type RunningCluster, startTemporalCluster } from '../../scripts/services/temporal-cluster';
import type { TemporalService } from '../../scripts/services/temporal-server';
import type { Db } from '../../shared/composition/store';
import { createDb } from '../../shared/composition/store';
import { startRpcProxy } from '../support/chain-control';
import { CLUSTER_FAULT_KINDS, FAULT_KINDS, type FaultKind } from './history';
import { type ChaosReceiver, type ChaosVendor, startChaosReceiver, startChaosVendor } from './servers';

/** How long a vendor call may take (the action's timeout_ms); a "timing out" vendor answers later than this. */
export const VENDOR_TIMEOUT_MS = 4000;
/** The hold healer's staleness bound for this stack (TOOL_HOLD_STALE_MINUTES), and its schedule's period. */
export const HOLD_STALE_MINUTES = 1;

const kill = (pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL') => {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
};
/** Where the stack's processes write their logs: one folder per soak. */
const LOG_DIR = path.join(CACHE, 'chaos', `logs-${new Date().toISOString().replace(/[:.]/g, '-')}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts a part a fault stopped, again until it is up: a part left down would stall the soak and
 * read as the service's fault. Each failed start is logged (a slow start on a loaded machine).
 */
async function untilBack<T>(name: string, log: (s: string) => void, start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (attempt >= 5) throw err;
      log(`${name} did not come back (attempt ${attempt}): ${(err as Error).message.slice(0, 200)}`);
      await sleep(2000);
    }
  }
}

/** A process the harness keeps running: started again whenever it exits, until the harness stops it. */
class Supervised {
  private child?: Child;
  private stopping = false;
  restarts = 0;
  constructor(
    readonly name: string,
    private readonly script: string,
    private readonly args: string[],
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  start(): void {
    const child = spawnTs(this.script, this.args, this.env);
    // Each process's log lines (LOG_LEVEL error by default) beside the run's history, for the post-mortem.
    mkdirSync(LOG_DIR, { recursive: true });
    child.proc.stdout?.pipe(
      createWriteStream(path.join(LOG_DIR, `${this.name.replace(/\W+/g, '-')}.log`), { flags: 'a' }),
    );
    this.child = child;
    void child.exit.then(async () => {
      if (this.stopping) return;
      this.restarts++;
      await sleep(300);
      if (!this.stopping) this.start();
    });
  }

  /** SIGKILL to its process group; the exit handler starts it again. */
  killHard(): void {
    kill(this.child?.proc.pid);
  }

  tail(): string {
    return this.child?.tail() ?? '';
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.child?.stop();
  }
}

export interface ChaosStack {
  mainUrl: string;
  apiUrl: string;
  db: Db;
  temporalAddress: string;
  chain: RunningLocalChain;
  vendor: ChaosVendor;
  receiver: ChaosReceiver;
  env: NodeJS.ProcessEnv;
  /** Which Temporal the stack runs: the dev server, or the multi-host cluster. */
  temporal: ChaosTemporal;
  /** The fault kinds this stack can inject. */
  faultKinds: readonly FaultKind[];
  faults: StackFaults;
  /** The API answers /health again (after a kill or a store fault). */
  waitHealthy(timeoutMs: number): Promise<boolean>;
  /** The API and worker processes: how often each was started again, and its last output lines. */
  processes(): Array<{ name: string; restarts: number; tail: string }>;
  stop(): Promise<void>;
}

/** The fault actions; each resolves when the fault is over and the part is back. */
export interface StackFaults {
  killWorker(i: number): void;
  killApi(): void;
  restartPostgres(downMs: number): Promise<void>;
  killFerretDb(downMs: number): Promise<void>;
  /** Every Temporal process SIGKILLed, started again after `downMs`; says what it killed. */
  restartTemporal(downMs: number): Promise<string>;
  chainDown(ms: number): Promise<void>;
  workerCount: number;
  /** The cluster only: one host of `service` (the `pick`-th, modulo their count) SIGKILLed, started again after `downMs`. */
  killHost?(service: TemporalService, pick: number, downMs: number): Promise<string>;
  /** The cluster only: one host SIGSTOPped for `ms`, then SIGCONTed. */
  pauseHost?(service: TemporalService, pick: number, ms: number): Promise<string>;
}

export type ChaosTemporal = 'dev' | 'cluster';

/** Every running stack's stop, so a harness interrupted (Ctrl-C, a test timeout) leaves no server behind. */
export const runningStacks = new Set<() => Promise<void>>();

export async function startChaosStack(opts: {
  dbName: string;
  temporal?: ChaosTemporal;
  log?: (s: string) => void;
}): Promise<ChaosStack> {
  const temporalKind = opts.temporal ?? 'dev';
  const log = opts.log ?? (() => undefined);
  const stops: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    runningStacks.delete(stopAll);
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  runningStacks.add(stopAll);
  try {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'chaos-'));
    chmodSync(dir, 0o755);
    stops.push(async () => rmSync(dir, { recursive: true, force: true }));
    const pgData = path.join(dir, 'pg');
    const temporalFile = path.join(dir, 'temporal.db');
    const [pgPort, ferretPort, temporalPort, uiPort, port, apiPort] = await Promise.all(
      Array.from({ length: 6 }, () => freePort()),
    );

    log('starting PostgreSQL, FerretDB, Temporal, anvil');
    let pg = await startPostgres({ port: pgPort, dataDir: pgData, profile: 'durable' });
    stops.push(() => pg.stop());
    let ferret = await startFerretDbOver(pg.url, { port: ferretPort });
    stops.push(() => ferret.stop());
    let temporal: RunningTemporal;
    let cluster: RunningCluster | undefined;
    if (temporalKind === 'cluster') {
      await ensureTemporalBinaries(log);
      // The balancer keeps the port the API and workers were given across every host's restart.
      cluster = await startTemporalCluster({
        balancerPort: temporalPort,
        uiPort,
        logDir: path.join(LOG_DIR, 'temporal'),
        log,
      });
      temporal = cluster;
      log(`Temporal cluster: ${cluster.hosts.map((h) => h.name).join(', ')} (logs in ${cluster.logDir})`);
    } else {
      temporal = await startTemporalDev({ port: temporalPort, uiPort, dbFile: temporalFile });
    }
    stops.push(() => temporal.stop());
    const chain = await startLocalChain();
    stops.push(() => chain.stop());
    // The harness's own chain calls (minting, reading logs) go straight to anvil; the service's through the proxy.
    Object.assign(process.env, chain.env);
    const proxy = await startRpcProxy(chain.rpcUrl);
    stops.push(() => proxy.close());
    const vendor = await startChaosVendor(VENDOR_TIMEOUT_MS * 2);
    stops.push(() => vendor.stop());
    const receiver = await startChaosReceiver();
    stops.push(() => receiver.close());

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...chain.env,
      [`X402_RPC_URL_84532`]: proxy.url,
      NODE_ENV: 'development',
      LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'error',
      MONGODB_URI: `mongodb://127.0.0.1:${ferretPort}`,
      MONGODB_DB_NAME: opts.dbName,
      TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
      TEMPORAL_TASK_QUEUE_PREFIX: `${opts.dbName}-`,
      PORT: String(port),
      API_PORT: String(apiPort),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      PUBLIC_API_URL: `http://127.0.0.1:${apiPort}`,
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
      AUTH_SESSION_LIMIT_PER_CLIENT: '100000',
      AUTH_SESSION_LIMIT_PER_WALLET: '100000',
      ACCESS_TOKEN_LIMIT_PER_CLIENT: '100000',
      JOB_RESERVE_LIMIT_PER_CLIENT: '100000',
      WORKFLOW_START_LIMIT_PER_CLIENT: '100000',
      WORKFLOW_START_LIMIT_PER_WALLET: '100000',
      PURCHASE_LIMIT_PER_CLIENT: '10000000',
      X402_VERIFY_LIMIT_PER_PAYER: '10000000',
      MCP_LIMIT_PER_CLIENT: '10000000',
      X402_SETTLE_WAIT_MS: '8000',
      X402_SWEEP_STALE_SECONDS: '30',
      // A paid call whose API process was killed mid-call stays `delivering` until the sweep
      // abandons it; the product's default (10 minutes) is past the soak's settle bound.
      X402_DELIVERING_STALE_SECONDS: '30',
      TOOL_HOLD_STALE_MINUTES: String(HOLD_STALE_MINUTES),
      SCHEDULE_LEASE_MIN_SECONDS: '5',
      CALLBACK_ALLOW_LOOPBACK: 'true',
      CALLBACK_CA_FILE: receiver.caFile,
      CALLBACK_TIMEOUT_MS: '5000',
      CALLBACK_INITIAL_INTERVAL_MS: '500',
      CALLBACK_BACKOFF_COEFFICIENT: '2',
      CALLBACK_MAX_INTERVAL_MS: '5000',
      CALLBACK_MAX_ATTEMPTS: '50',
    };
    const db = createDb({ uri: env.MONGODB_URI!, dbName: opts.dbName });
    await db.ready(60_000);
    stops.push(() => db.close());

    log('starting the API and the workers');
    const workers = [
      new Supervised('worker trusted 1', 'workers/main.ts', ['--queues', 'trusted'], env),
      new Supervised('worker trusted 2', 'workers/main.ts', ['--queues', 'trusted'], env),
      new Supervised('worker untrusted', 'workers/main.ts', ['--queues', 'untrusted'], env),
    ];
    const api = new Supervised('api', 'api/main.ts', [], env);
    for (const p of [...workers, api]) {
      p.start();
      stops.push(() => p.stop());
    }
    const mainUrl = `http://127.0.0.1:${port}`;
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const waitHealthy = async (timeoutMs: number) => {
      const end = Date.now() + timeoutMs;
      while (Date.now() < end) {
        if ((await portOpen(port)) && (await portOpen(apiPort))) {
          const res = await fetch(`${apiUrl}/health`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
          if (res?.ok) return true;
        }
        await sleep(250);
      }
      return false;
    };
    if (!(await waitHealthy(180_000))) throw new Error(`the API did not come up:\n${api.tail()}`);

    const faults: StackFaults = {
      workerCount: workers.length,
      killWorker: (i) => workers[i % workers.length]!.killHard(),
      killApi: () => api.killHard(),
      async restartPostgres(downMs) {
        await pg.stop();
        await sleep(downMs);
        pg = await untilBack('PostgreSQL', log, () =>
          startPostgres({ port: pgPort, dataDir: pgData, profile: 'durable' }),
        );
      },
      async killFerretDb(downMs) {
        kill(ferret.child.pid);
        await new Promise((r) => (ferret.child.exitCode !== null ? r(null) : ferret.child.once('exit', r)));
        await sleep(downMs);
        ferret = await untilBack('FerretDB', log, () => startFerretDbOver(pg.url, { port: ferretPort }));
      },
      async restartTemporal(downMs) {
        if (cluster) {
          const hosts = cluster.hosts;
          await Promise.all(hosts.map((h) => h.kill()));
          await sleep(downMs);
          await Promise.all(hosts.map((h) => h.start()));
          return `every Temporal host (${hosts.length}) SIGKILL`;
        }
        kill(temporal.pid);
        for (let i = 0; i < 100 && (await portOpen(temporalPort)); i++) await sleep(100);
        await sleep(downMs);
        temporal = await untilBack('Temporal', log, () =>
          startTemporalDev({ port: temporalPort, uiPort, dbFile: temporalFile }),
        );
        return 'Temporal SIGKILL (its state file kept)';
      },
      ...(cluster ? clusterFaults(cluster) : {}),
      async chainDown(ms) {
        proxy.down = true;
        await sleep(ms);
        proxy.down = false;
      },
    };

    return {
      mainUrl,
      apiUrl,
      db,
      temporalAddress: env.TEMPORAL_ADDRESS!,
      chain,
      vendor,
      receiver,
      env,
      temporal: temporalKind,
      faultKinds: cluster ? CLUSTER_FAULT_KINDS : FAULT_KINDS,
      faults,
      waitHealthy,
      processes: () => [...workers, api].map((p) => ({ name: p.name, restarts: p.restarts, tail: p.tail() })),
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

function clusterFaults(cluster: RunningCluster): Pick<StackFaults, 'killHost' | 'pauseHost'> {
  const pickHost = (service: TemporalService, pick: number) => {
    const of = cluster.hosts.filter((h) => h.service === service);
    return of[pick % of.length]!;
  };
  return {
    async killHost(service, pick, downMs) {
      const host = pickHost(service, pick);
      await host.kill();
      await sleep(downMs);
      await host.start();
      return host.name;
    },
    async pauseHost(service, pick, ms) {
      const host = pickHost(service, pick);
      host.pause();
      try {
        await sleep(ms);
      } finally {
        host.resume();
      }
      return host.name;
    },
  };
}
