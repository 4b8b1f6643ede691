import path from 'node:path';
import { CACHE, ferretdbBinary } from './paths';
import { freePort, ManagedProcess, portOpen, startProcess } from './process';

export interface RunningMongo {
  uri: string;
  stop(): Promise<void>;
}

/** FerretDB 1.x on SQLite: the MongoDB-wire server used where no mongod can be had. */
export async function startFerretDb(opts: { port?: number; dataDir?: string } = {}): Promise<RunningMongo> {
  const port = opts.port || (await freePort());
  const dataDir = opts.dataDir ?? path.join(CACHE, `ferretdb-${port}`);
  const proc: ManagedProcess = await startProcess({
    name: 'ferretdb',
    command: ferretdbBinary(),
    args: ['-listen', `127.0.0.1:${port}`, '-dir', dataDir],
    ready: () => portOpen(port),
    timeoutMs: 30000,
  });
  return { uri: `mongodb://127.0.0.1:${port}`, stop: proc.stop };
}
