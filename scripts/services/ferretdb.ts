import { ferretdbBinary } from './paths';
import { PostgresProfile, startPostgres } from './postgres';
import { ManagedProcess, onFreePort, portOpen, startProcess } from './process';

export interface RunningMongo {
  uri: string;
  /** The wire server's process id, when we started it. */
  pid?: number;
  /** The PostgreSQL server behind it. */
  postgres: { url: string; port: number };
  stop(): Promise<void>;
}

/**
 * The MongoDB-wire store used where no mongod can be had: FerretDB 1.x on its `postgresql`
 * handler, over a PostgreSQL server of its own. `dataDir` is the PostgreSQL cluster's folder;
 * without one the data is throwaway (removed on stop). With `debugAddr` FerretDB serves Go pprof
 * profiles (`/debug/pprof/`) there.
 */
export async function startFerretDb(
  opts: { port?: number; dataDir?: string; debugAddr?: string; profile?: PostgresProfile } = {},
): Promise<RunningMongo> {
  const pg = await startPostgres({ dataDir: opts.dataDir, profile: opts.profile });
  try {
    const proc = await onFreePort(opts.port, (port) => launch(port, pg.url, opts.debugAddr));
    const stop = async () => {
      await proc.stop();
      await pg.stop();
    };
    return { uri: proc.uri, pid: proc.child.pid, postgres: { url: pg.url, port: pg.port }, stop };
  } catch (err) {
    await pg.stop();
    throw err;
  }
}

/** FerretDB alone, over a PostgreSQL someone else runs (the fault tests stop and restart it underneath). */
export function startFerretDbOver(
  pgUrl: string,
  opts: { port?: number } = {},
): Promise<ManagedProcess & { uri: string }> {
  return onFreePort(opts.port, (port) => launch(port, pgUrl, undefined));
}

async function launch(
  port: number,
  pgUrl: string,
  debugAddr: string | undefined,
): Promise<ManagedProcess & { uri: string }> {
  // Otherwise the readiness poll could be answered by whatever already listens there.
  if (await portOpen(port)) throw new Error(`ferretdb: 127.0.0.1:${port} is already in use (address already in use)`);
  const proc = await startProcess({
    name: 'ferretdb',
    command: ferretdbBinary(),
    args: ['-listen', `127.0.0.1:${port}`, '-postgresql-url', pgUrl, ...(debugAddr ? ['-debug-addr', debugAddr] : [])],
    ready: () => portOpen(port),
    timeoutMs: 30000,
  });
  return { ...proc, uri: `mongodb://127.0.0.1:${port}` };
}
