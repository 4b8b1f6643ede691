import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { temporalCli } from './paths';
import { freePort, portOpen, startProcess } from './process';
import { SEARCH_ATTRIBUTE_FLAGS } from './search-attribute-flags';

export interface RunningTemporal {
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

/**
 * `temporal server start-dev`: a real Temporal server with its Web UI, state in a SQLite file.
 * Without a `dbFile` the state is throwaway: a temporary folder, removed on stop.
 */
export async function startTemporalDev(opts: { port?: number; uiPort?: number; dbFile?: string } = {}): Promise<RunningTemporal> {
  const port = opts.port || (await freePort());
  const uiPort = opts.uiPort || (await freePort());
  const tmpDir = opts.dbFile ? undefined : await mkdtemp(path.join(os.tmpdir(), 'temporal-'));
  const dbFile = opts.dbFile ?? path.join(tmpDir!, 'state.db');
  const proc = await startProcess({
    name: 'temporal',
    command: temporalCli(),
    args: [
      'server', 'start-dev',
      '--ip', '127.0.0.1', '--port', String(port), '--ui-port', String(uiPort),
      '--db-filename', dbFile, '--log-level', 'error',
      ...SEARCH_ATTRIBUTE_FLAGS,
    ],
    ready: async () => (await portOpen(port)) && (await portOpen(uiPort)),
    timeoutMs: 60000,
  });
  const stop = async () => {
    await proc.stop();
    if (tmpDir) await rm(tmpDir, { recursive: true, force: true });
  };
  return { address: `127.0.0.1:${port}`, uiUrl: `http://127.0.0.1:${uiPort}`, stop };
}
