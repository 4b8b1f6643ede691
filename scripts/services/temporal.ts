import path from 'node:path';
import { CACHE, temporalCli } from './paths';
import { freePort, portOpen, startProcess } from './process';
import { SEARCH_ATTRIBUTE_FLAGS } from './search-attribute-flags';

export interface RunningTemporal {
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

/** `temporal server start-dev`: a real Temporal server with its Web UI, state in a SQLite file. */
export async function startTemporalDev(opts: { port?: number; uiPort?: number; dbFile?: string } = {}): Promise<RunningTemporal> {
  const port = opts.port || (await freePort());
  const uiPort = opts.uiPort || (await freePort());
  const dbFile = opts.dbFile ?? path.join(CACHE, `temporal-${port}.db`);
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
  return { address: `127.0.0.1:${port}`, uiUrl: `http://127.0.0.1:${uiPort}`, stop: proc.stop };
}
