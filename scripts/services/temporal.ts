import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { temporalCli } from './paths';
import { ManagedProcess, onFreePort, portOpen, startProcess } from './process';
import { SEARCH_ATTRIBUTE_FLAGS } from './search-attribute-flags';

export interface RunningTemporal {
  address: string;
  uiUrl: string;
  /** The server's process id (its own process group): the chaos soak kills it hard. */
  pid?: number;
  stop(): Promise<void>;
}

/**
 * Settings that matter for speed, still file-backed and durable across a clean stop: the
 * SQLite write-ahead log with `synchronous=normal` (a commit no longer waits for an fsync of the
 * main file), search attributes read from the cache instead of the store on every request
 * (they are registered at start, below), and one partition per task queue (the server's default
 * of 4 spreads a queue over matching hosts; with one host it only adds forwarding hops between
 * partitions). The history service reads its transfer queue (the tasks that hand a new workflow
 * task to matching) at most 20 times a second by default, so a workflow started within ~50 ms of
 * the last read waits for the next one; 100 reads a second removes that wait. Measured in
 * docs/decisions.md (bench/temporal-floor.ts, bench/dispatch-wait.ts). Compose's server gets the
 * same value from tools/temporal-server/dynamic-config.yaml.
 */
export const DEV_SERVER_SPEED_FLAGS: string[] = [
  '--sqlite-pragma',
  'journal_mode=wal',
  '--sqlite-pragma',
  'synchronous=normal',
  '--dynamic-config-value',
  'system.forceSearchAttributesCacheRefreshOnRead=false',
  '--dynamic-config-value',
  'matching.numTaskqueueReadPartitions=1',
  '--dynamic-config-value',
  'matching.numTaskqueueWritePartitions=1',
  '--dynamic-config-value',
  'history.transferProcessorMaxPollRPS=100',
];

/**
 * `temporal server start-dev`: a real Temporal server with its Web UI, state in a SQLite file.
 * Without a `dbFile` the state is throwaway: a temporary folder, removed on stop.
 */
export async function startTemporalDev(
  opts: { port?: number; uiPort?: number; dbFile?: string } = {},
): Promise<RunningTemporal> {
  return startTemporalDevWith(DEV_SERVER_SPEED_FLAGS, opts);
}

/** `start-dev` with the given speed flags instead of ours (bench/temporal-floor.ts compares them). */
export async function startTemporalDevWith(
  speedFlags: string[],
  opts: { port?: number; uiPort?: number; dbFile?: string } = {},
): Promise<RunningTemporal> {
  return onFreePort(opts.port, (port) =>
    onFreePort(opts.uiPort, (uiPort) => launch(port, uiPort, opts.dbFile, speedFlags)),
  );
}

async function launch(
  port: number,
  uiPort: number,
  fixedDbFile: string | undefined,
  speedFlags: string[],
): Promise<RunningTemporal> {
  for (const p of [port, uiPort]) {
    if (await portOpen(p)) throw new Error(`temporal: 127.0.0.1:${p} is already in use (address already in use)`);
  }
  const tmpDir = fixedDbFile ? undefined : await mkdtemp(path.join(os.tmpdir(), 'temporal-'));
  const dbFile = fixedDbFile ?? path.join(tmpDir!, 'state.db');
  const removeState = () => (tmpDir ? rm(tmpDir, { recursive: true, force: true }) : Promise.resolve());
  let proc: ManagedProcess;
  try {
    proc = await startProcess({
      name: 'temporal',
      command: temporalCli(),
      args: [
        'server',
        'start-dev',
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--ui-port',
        String(uiPort),
        '--db-filename',
        dbFile,
        '--log-level',
        'error',
        ...speedFlags,
        ...SEARCH_ATTRIBUTE_FLAGS,
      ],
      ready: async () => (await portOpen(port)) && (await portOpen(uiPort)),
      timeoutMs: 60000,
    });
  } catch (err) {
    await removeState();
    throw err;
  }
  const stop = async () => {
    await proc.stop();
    await removeState();
  };
  return { address: `127.0.0.1:${port}`, uiUrl: `http://127.0.0.1:${uiPort}`, pid: proc.child.pid, stop };
}
