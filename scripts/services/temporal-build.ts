/**
 * The real Temporal server's binaries, built on demand from the Go module proxy into .cache/bin
 * and kept there: `temporal-server` and `temporal-sql-tool` from go.temporal.io/server as pinned
 * by tools/temporal-server (go.mod, go.sum), and the Web UI's server (temporalio/ui-server, its
 * assets embedded in the module). A cold build costs CPU-minutes, so nothing in `make test`
 * calls this; `make cluster` and `CHAOS_TEMPORAL=cluster make chaos` do, and a second call only
 * compares the stamps. The Go build cache is Go's own (GOCACHE), so a rebuild after a pin moves
 * recompiles only what changed.
 *
 *   node_modules/.bin/tsx scripts/services/temporal-build.ts      (builds what is missing)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sha256Hex } from '../../shared/platform/ids/index';
import { CACHE, ROOT } from './paths';

export const TEMPORAL_SERVER_BIN = path.join(CACHE, 'bin/temporal-server');
export const TEMPORAL_SQL_TOOL_BIN = path.join(CACHE, 'bin/temporal-sql-tool');
export const TEMPORAL_UI_BIN = path.join(CACHE, 'bin/temporal-ui-server');

/**
 * The Web UI server's version: the newest whose go.mod asks for no newer Go than the machines
 * have (v2.56.1 and later want go ≥ 1.26.10). docker-compose.yml runs the `temporalio/ui` image
 * of the same version (test/deploy/compose.test.ts checks).
 */
export const UI_SERVER_VERSION = 'v2.55.0';

const SERVER_SRC = path.join(ROOT, 'tools/temporal-server');

/** What the server binaries are built from: a change of pin rebuilds them. */
export function serverSourceStamp(): string {
  return sha256Hex(Buffer.concat(['go.mod', 'go.sum'].map((f) => fs.readFileSync(path.join(SERVER_SRC, f)))));
}

const stampOf = (bin: string) => `${bin}.src.sha256`;
const stamped = (bin: string, want: string) =>
  fs.existsSync(bin) && fs.existsSync(stampOf(bin)) && fs.readFileSync(stampOf(bin), 'utf8').trim() === want;

/**
 * Builds what is missing or stale; returns whether the UI server could be had (its build is
 * tried once per version: a failure is remembered with its error, and the cluster runs without
 * a UI rather than failing).
 */
export async function ensureTemporalBinaries(log: (s: string) => void = console.log): Promise<{ ui: boolean }> {
  fs.mkdirSync(path.dirname(TEMPORAL_SERVER_BIN), { recursive: true });
  const want = serverSourceStamp();
  if (!stamped(TEMPORAL_SERVER_BIN, want) || !stamped(TEMPORAL_SQL_TOOL_BIN, want)) {
    log('building the Temporal server from the Go module proxy (tools/temporal-server; a cold build takes minutes)');
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-build-'));
    const t = Date.now();
    try {
      await goBuild(SERVER_SRC, [
        'build',
        '-o',
        `${out}/`,
        'go.temporal.io/server/cmd/server',
        'go.temporal.io/server/cmd/tools/sql',
      ]);
      // Renamed into place (same file system or copied), so a half-written binary is never run.
      install(path.join(out, 'server'), TEMPORAL_SERVER_BIN);
      install(path.join(out, 'sql'), TEMPORAL_SQL_TOOL_BIN);
      for (const bin of [TEMPORAL_SERVER_BIN, TEMPORAL_SQL_TOOL_BIN]) fs.writeFileSync(stampOf(bin), `${want}\n`);
      log(`built the Temporal server in ${Math.round((Date.now() - t) / 1000)} s`);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  }
  return { ui: await ensureUiServer(log) };
}

async function ensureUiServer(log: (s: string) => void): Promise<boolean> {
  if (stamped(TEMPORAL_UI_BIN, UI_SERVER_VERSION)) return true;
  const failed = `${TEMPORAL_UI_BIN}.failed-${UI_SERVER_VERSION}`;
  if (fs.existsSync(failed)) {
    log(`no Web UI: temporalio/ui-server ${UI_SERVER_VERSION} did not build (${failed})`);
    return false;
  }
  log(`building the Temporal Web UI server ${UI_SERVER_VERSION} from the Go module proxy`);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-ui-build-'));
  try {
    // Outside any module (`go install pkg@version`): the UI server's own go.mod and go.sum decide.
    await goBuild(out, ['install', `github.com/temporalio/ui-server/v2/cmd/server@${UI_SERVER_VERSION}`], {
      GOBIN: out,
      GOFLAGS: '',
    });
    install(path.join(out, 'server'), TEMPORAL_UI_BIN);
    fs.writeFileSync(stampOf(TEMPORAL_UI_BIN), `${UI_SERVER_VERSION}\n`);
    return true;
  } catch (err) {
    fs.writeFileSync(failed, (err as Error).message);
    log(`no Web UI: temporalio/ui-server ${UI_SERVER_VERSION} did not build: ${(err as Error).message.slice(-500)}`);
    return false;
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

function install(from: string, to: string): void {
  const tmp = `${to}.tmp-${process.pid}`;
  fs.copyFileSync(from, tmp);
  fs.chmodSync(tmp, 0o755);
  fs.renameSync(tmp, to);
}

/** `go` at a lower priority: the build shares the machine with whatever else runs. */
function goBuild(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('nice', ['-n', '10', 'go', ...args], {
      cwd,
      // -mod=mod: go.sum of tools/temporal-server lists what the build needs; the flag lets go
      // fetch a missing module's hash from the proxy's checksum database instead of stopping.
      env: { ...process.env, GOFLAGS: '-mod=mod', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`go ${args[0]} exited with ${code}:\n${err}`)),
    );
  });
}

if (require.main === module) {
  ensureTemporalBinaries().then(
    ({ ui }) =>
      console.log(`Temporal server ready in ${path.dirname(TEMPORAL_SERVER_BIN)}${ui ? ', with the Web UI' : ''}`),
    (err: Error) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
