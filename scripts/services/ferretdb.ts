import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ferretdbBinary } from './paths';
import { freePort, ManagedProcess, portOpen, startProcess } from './process';

export interface RunningMongo {
  uri: string;
  stop(): Promise<void>;
}

/**
 * FerretDB 1.x on SQLite: the MongoDB-wire server used where no mongod can be had. Without a
 * `dataDir` the data is throwaway: a temporary folder, removed on stop.
 */
export async function startFerretDb(opts: { port?: number; dataDir?: string } = {}): Promise<RunningMongo> {
  const port = opts.port || (await freePort());
  const dataDir = opts.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'ferretdb-')));
  const proc: ManagedProcess = await startProcess({
    name: 'ferretdb',
    command: ferretdbBinary(),
    args: ['-listen', `127.0.0.1:${port}`, '-dir', dataDir],
    ready: () => portOpen(port),
    timeoutMs: 30000,
  });
  const stop = async () => {
    await proc.stop();
    if (!opts.dataDir) await rm(dataDir, { recursive: true, force: true });
  };
  return { uri: `mongodb://127.0.0.1:${port}`, stop };
}
