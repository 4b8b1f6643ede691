import { spawn, SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { postgresBin } from './paths';
import { ManagedProcess, onFreePort, portOpen, startProcess } from './process';

export interface RunningPostgres {
  /** libpq URL of the `postgres` database, trust auth on loopback only. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Settings per use. `throwaway` (tests): no fsync, since a test's data dies with the run anyway;
 * the durability of what the suite checks (decisions as inserts under unique keys) does not
 * depend on the disk. `durable` (make dev, make bench): PostgreSQL's own defaults.
 */
export type PostgresProfile = 'throwaway' | 'durable';

const PROFILE_SETTINGS: Record<PostgresProfile, string[]> = {
  throwaway: ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'],
  durable: [],
};

/**
 * PostgreSQL from Debian's package (in the machine image; scripts/bootstrap.sh installs it where
 * it is missing), run as the `postgres` user when we are root, listening on loopback TCP only.
 * Without a `dataDir` the cluster is throwaway: a temporary folder, removed on stop.
 */
export async function startPostgres(
  opts: { port?: number; dataDir?: string; profile?: PostgresProfile } = {},
): Promise<RunningPostgres> {
  const profile = opts.profile ?? (opts.dataDir ? 'durable' : 'throwaway');
  return onFreePort(opts.port, (port) => launch(port, opts.dataDir, profile));
}

async function launch(
  port: number,
  fixedDataDir: string | undefined,
  profile: PostgresProfile,
): Promise<RunningPostgres> {
  if (await portOpen(port)) throw new Error(`postgres: 127.0.0.1:${port} is already in use (address already in use)`);
  const owner = serverUser();
  const tmpRoot = fixedDataDir ? undefined : await mkdtemp(path.join(os.tmpdir(), 'pg-'));
  const dataDir = fixedDataDir ?? path.join(tmpRoot!, 'data');
  const removeData = () => (tmpRoot ? rm(tmpRoot, { recursive: true, force: true }) : Promise.resolve());
  let proc: ManagedProcess;
  try {
    if (tmpRoot && owner) await chown(tmpRoot, owner.uid, owner.gid);
    if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) await initdb(dataDir, owner);
    proc = await startProcess({
      name: 'postgres',
      command: postgresBin('postgres'),
      args: [
        '-D',
        dataDir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `port=${port}`,
        // No Unix socket: its default folder (/var/run/postgresql) may not exist or be ours.
        '-c',
        'unix_socket_directories=',
        '-c',
        'max_connections=200',
        // Statistics catch up seconds after a burst of inserts, not a minute (the default).
        '-c',
        'autovacuum_naptime=5s',
        ...PROFILE_SETTINGS[profile].flatMap((s) => ['-c', s]),
      ],
      ...asOwner(owner),
      // Fast shutdown: SIGTERM is PostgreSQL's "smart" mode, which waits for FerretDB's pooled
      // sessions to end (they never do) until the SIGKILL, a crash that loses what a throwaway
      // cluster acknowledged without flushing.
      stopSignal: 'SIGINT',
      // The port opens before the server accepts sessions ("the database system is starting up").
      ready: async () =>
        (await portOpen(port)) &&
        (await psql(port, ['-c', 'SELECT 1']).then(
          () => true,
          () => false,
        )),
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
  try {
    await psqlFile(port, path.join(__dirname, 'ferretdb-gin-twins.sql'));
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, port, stop };
}

/** PostgreSQL refuses to run as root; root hands the cluster to the `postgres` system user. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line)
    throw new Error(
      'postgres: running as root, and there is no `postgres` user to run the server as (run scripts/bootstrap.sh)',
    );
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function asOwner(owner: { uid: number; gid: number } | undefined): Pick<SpawnOptions, 'uid' | 'gid'> {
  return owner ? { uid: owner.uid, gid: owner.gid } : {};
}

/**
 * Refreshes the planner's statistics of every table, as autovacuum does a little after a table
 * grows. For a benchmark that bulk-loads faster than autovacuum wakes up.
 */
export function analyzePostgres(port: number): Promise<void> {
  return psql(port, ['-c', 'ANALYZE']);
}

/** Runs a SQL file against the `postgres` database, stopping at the first error. */
function psqlFile(port: number, file: string): Promise<void> {
  return psql(port, ['-v', 'ON_ERROR_STOP=1', '-f', file]);
}

function psql(port: number, args: string[]): Promise<void> {
  return runToEnd(
    postgresBin('psql'),
    ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-q', ...args],
    {},
  );
}

function runToEnd(command: string, args: string[], opts: Pick<SpawnOptions, 'uid' | 'gid'>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], ...opts });
    let err = '';
    child.stderr!.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(command)} exited with ${code}:\n${err}`)),
    );
  });
}

async function initdb(dataDir: string, owner: { uid: number; gid: number } | undefined): Promise<void> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (owner) await chown(dataDir, owner.uid, owner.gid);
  await runToEnd(
    postgresBin('initdb'),
    ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'],
    asOwner(owner),
  );
}
