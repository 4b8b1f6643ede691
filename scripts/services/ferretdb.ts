import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ferretdbBinary } from './paths';
import { ManagedProcess, onFreePort, portOpen, startProcess } from './process';

export interface RunningMongo {
  uri: string;
  /** The server's process id, when we started it. */
  pid?: number;
  stop(): Promise<void>;
}

/**
 * FerretDB 1.x on SQLite: the MongoDB-wire server used where no mongod can be had. Without a
 * `dataDir` the data is throwaway: a temporary folder, removed on stop. With `debugAddr` it serves
 * Go pprof profiles (`/debug/pprof/`) there.
 */
export async function startFerretDb(opts: { port?: number; dataDir?: string; debugAddr?: string } = {}): Promise<RunningMongo> {
  return onFreePort(opts.port, (port) => launch(port, opts.dataDir, opts.debugAddr));
}

async function launch(port: number, fixedDataDir: string | undefined, debugAddr: string | undefined): Promise<RunningMongo> {
  // Otherwise the readiness poll could be answered by whatever already listens there.
  if (await portOpen(port)) throw new Error(`ferretdb: 127.0.0.1:${port} is already in use (address already in use)`);
  const dataDir = fixedDataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'ferretdb-')));
  const removeData = () => (fixedDataDir ? Promise.resolve() : rm(dataDir, { recursive: true, force: true }));
  let proc: ManagedProcess;
  try {
    proc = await startProcess({
      name: 'ferretdb',
      command: ferretdbBinary(),
      args: ['-listen', `127.0.0.1:${port}`, '-dir', dataDir, ...(debugAddr ? ['-debug-addr', debugAddr] : [])],
      ready: () => portOpen(port),
      timeoutMs: 30000,
    });
  } catch (err) {
    await removeData();
    throw err;
  }
  const stop = async () => {
    await proc.stop();
    await removeData();
  };
  return { uri: `mongodb://127.0.0.1:${port}`, pid: proc.child.pid, stop };
}
