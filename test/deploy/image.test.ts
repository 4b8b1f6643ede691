import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mongoose from 'mongoose';
import { generatePrivateKey } from 'viem/accounts';
import { type DockerStage, readDockerfile } from '../../scripts/services/dockerfile';
import { freePort } from '../../scripts/services/process';
import { devPrivateKey } from '../../shared/payments/chain/dev-accounts';
import { createTemporal } from '../../temporal/connection';
import { runPing } from '../../temporal/ping/client';
import { TestAgent } from '../support/agent';
import { http } from '../support/http';

const ROOT = path.resolve(__dirname, '../..');

/** Copies a stage's COPY lines into `dir`, from the checkout or from an earlier stage's folder. */
function replayCopies(stage: DockerStage, dir: string, stageDirs: Record<string, string>): void {
  for (const { from, to, stage: source } of stage.copies) {
    const base = source ? stageDirs[source] : ROOT;
    for (const src of from) {
      const rel = source ? path.relative('/app', src) : src;
      const dest = to.endsWith('/') || from.length > 1 ? path.join(dir, to, path.basename(src)) : path.join(dir, to);
      fs.cpSync(path.join(base, rel), dest, { recursive: true });
    }
  }
}

/**
 * node_modules as the stage's `npm ci` line would leave it, without the network: npm itself lists
 * the packages (the same line with --dry-run, in a folder holding only the copied package.json and
 * lock, so the workspace's packages are left out as in the image), and each is linked from the
 * working copy's node_modules at the version npm named.
 */
function installLikeNpmCi(dir: string, install: string): string[] {
  const args = install.split(/\s+/).slice(1);
  const listed = execFileSync('npm', [...args, '--dry-run', '--no-audit', '--no-fund'], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
    .split('\n')
    .flatMap((l) => /^add (\S+) (\S+)$/.exec(l)?.slice(1, 3) ?? [])
    .reduce<Array<[string, string]>>((pairs, v, i, all) => (i % 2 ? pairs : [...pairs, [v, all[i + 1]]]), []);
  if (listed.length < 50) throw new Error(`npm ${args.join(' ')} --dry-run listed ${listed.length} packages`);
  const target = path.join(dir, 'node_modules');
  const versionAt = (p: string) =>
    fs.existsSync(path.join(p, 'package.json'))
      ? (JSON.parse(fs.readFileSync(path.join(p, 'package.json'), 'utf8')) as { version: string }).version
      : undefined;
  const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  const nested: Array<[string, string]> = [];
  for (const [name, version] of listed) {
    const src = path.join(ROOT, 'node_modules', name);
    // Another version, nested under its dependant: it comes along inside the dependant's link.
    if (versionAt(src) !== version) nested.push([name, version]);
    else if (!fs.existsSync(path.join(target, name))) {
      fs.mkdirSync(path.dirname(path.join(target, name)), { recursive: true });
      fs.symlinkSync(src, path.join(target, name));
    }
  }
  for (const [name, version] of nested) {
    const where = Object.keys(lock.packages).filter(
      (k) => k.endsWith(`/node_modules/${name}`) && lock.packages[k].version === version,
    );
    const linked = where.some((k) => fs.existsSync(path.join(dir, k, 'package.json')));
    if (!linked) throw new Error(`${name}@${version}: npm would install it, the replay cannot place it`);
  }
  fs.mkdirSync(path.join(target, '.bin'), { recursive: true });
  for (const name of fs
    .readdirSync(target)
    .flatMap((n) =>
      n.startsWith('@') ? fs.readdirSync(path.join(target, n)).map((m) => `${n}/${m}`) : n === '.bin' ? [] : [n],
    )) {
    const manifest = JSON.parse(fs.readFileSync(path.join(target, name, 'package.json'), 'utf8')) as {
      name: string;
      bin?: string | Record<string, string>;
    };
    const bins =
      typeof manifest.bin === 'string' ? { [manifest.name.split('/').pop()!]: manifest.bin } : (manifest.bin ?? {});
    for (const [bin, file] of Object.entries(bins)) {
      const link = path.join(target, '.bin', bin);
      if (!fs.existsSync(link)) fs.symlinkSync(path.join(target, name, file), link);
    }
  }
  return listed.map(([name]) => name);
}

function waitForExit(child: ChildProcess, ms: number): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    const timer = setTimeout(() => resolve(null), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe('the Docker image, both stages replayed without a container engine', () => {
  const [build, runtime] = readDockerfile();
  let buildDir: string;
  let app: string;
  let installed: string[];
  const children: ChildProcess[] = [];
  const dbName = `${process.env.MONGODB_DB_NAME}_image`;
  // Its own task queues: no other worker of the test run takes the ping meant for the compiled one.
  const prefix = `image-${process.pid}-`;
  beforeAll(() => {
    // Build stage: every dependency (the checkout's node_modules), the sources, then its RUN npm run build.
    buildDir = fs.mkdtempSync(path.join(os.tmpdir(), 'image-build-'));
    replayCopies(build, buildDir, {});
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(buildDir, 'node_modules'));
    for (const run of build.runs.filter((r) => /^npm run /.test(r)))
      execFileSync('npm', run.split(/\s+/).slice(1), { cwd: buildDir, stdio: 'pipe' });
    // Runtime stage: the lock's production packages as its npm ci line installs them, and dist/ from the build stage.
    app = fs.mkdtempSync(path.join(os.tmpdir(), 'image-'));
    replayCopies({ ...runtime, copies: runtime.copies.filter((c) => c.from.includes('package.json')) }, app, {});
    installed = installLikeNpmCi(
      app,
      runtime.runs.find((r) => /^npm ci/.test(r))!,
    );
    replayCopies({ ...runtime, copies: runtime.copies.filter((c) => !c.from.includes('package.json')) }, app, {
      [build.name]: buildDir,
    });
  }, 600_000);
  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null) child.kill('SIGTERM');
      await waitForExit(child, 10_000);
    }
    fs.rmSync(app, { recursive: true, force: true });
    fs.rmSync(buildDir, { recursive: true, force: true });
    const conn = await mongoose.createConnection(process.env.MONGODB_URI!, { dbName }).asPromise();
    await conn.dropDatabase().catch(() => undefined);
    await conn.close();
  });

  function run(cmd: string[], extraEnv: Record<string, string>): { child: ChildProcess; output: () => string } {
    let output = '';
    const child = spawn(cmd[0], cmd.slice(1), {
      cwd: app,
      // Production requires its own secrets (jobs, tool vendor secrets, the metrics token); the image's own refusals are what is tested.
      env: {
        PATH: process.env.PATH,
        HOME: os.tmpdir(),
        ...runtime.env,
        JOB_WORKFLOW_TOKEN_SECRET: 'image-test-job-workflow-token-secret-000000',
        TOOL_SECRETS_KEY: '1f'.repeat(32),
        METRICS_TOKEN: 'image-test-metrics-token-0000',
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    return { child, output: () => output };
  }

  const serviceEnv = () => ({
    MONGODB_URI: process.env.MONGODB_URI!,
    MONGODB_DB_NAME: dbName,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
    TEMPORAL_TASK_QUEUE_PREFIX: prefix,
    PUBLIC_BASE_URL: 'https://api.example.test',
    PUBLIC_API_URL: 'https://bearer.example.test',
    HEALTH_DETAILS_TOKEN: 'image-test-operator-token',
    LOG_LEVEL: 'warn',
  });

  it('builds in one stage and runs compiled JavaScript with production dependencies only in the other', () => {
    expect(build.runs).toContain('npm run build');
    expect(runtime.env.NODE_ENV).toBe('production');
    expect(runtime.runs.find((r) => /^npm ci/.test(r))).toMatch(/--omit=dev/);
    expect(runtime.cmd).toEqual(['node', 'dist/api/main.js']);
    expect(fs.existsSync(path.join(app, 'dist/api/main.js'))).toBe(true);
    expect(fs.existsSync(path.join(app, 'dist/workflow-bundle.js'))).toBe(true);
    // No TypeScript at runtime: no sources, no loader, no compiler (before, tsx ran the sources at every start).
    for (const dir of ['api', 'workers', 'temporal', 'shared']) expect(fs.existsSync(path.join(app, dir))).toBe(false);
    const tsFiles = fs.readdirSync(path.join(app, 'dist'), { recursive: true }).filter((f) => /\.ts$/.test(String(f)));
    expect(tsFiles).toEqual([]);
    for (const pkg of ['tsx', 'typescript', 'esbuild', '@swc/jest', 'jest']) {
      expect(installed).not.toContain(pkg);
      expect(fs.existsSync(path.join(app, 'node_modules', pkg))).toBe(false);
    }
    // Every package the compiled code requires is one the runtime installed (a dev-only one would crash at start).
    const required = new Set<string>();
    for (const file of fs.readdirSync(path.join(app, 'dist'), { recursive: true }).map(String)) {
      if (!file.endsWith('.js') || file === 'workflow-bundle.js') continue;
      for (const [, name] of fs
        .readFileSync(path.join(app, 'dist', file), 'utf8')
        .matchAll(/require\("([^".][^"]*)"\)/g))
        if (!name.startsWith('node:'))
          required.add(
            name
              .split('/')
              .slice(0, name.startsWith('@') ? 2 : 1)
              .join('/'),
          );
    }
    expect([...required].filter((name) => !installed.includes(name))).toEqual([]);
    // Nor the bundler's native compiler: a worker that tried to bundle at start would fail, not slow down.
    expect(installed.filter((p) => p.startsWith('@swc/core-'))).toEqual([]);
    expect(installed).toContain('@temporalio/worker');
  });

  it('serves /health and a real request from the compiled API, and a compiled worker of every queue runs a workflow', async () => {
    const [port, apiPort] = [await freePort(), await freePort()];
    const api = run(runtime.cmd, {
      ...serviceEnv(),
      HOST: '127.0.0.1',
      PORT: String(port),
      API_PORT: String(apiPort),
      X402_SETTLEMENT_PRIVATE_KEY: generatePrivateKey(),
    });
    const worker = run(['node', 'dist/workers/main.js', '--queues', 'all'], serviceEnv());
    let health: Awaited<ReturnType<typeof http>> | undefined;
    for (const deadline = Date.now() + 90_000; Date.now() < deadline && api.child.exitCode === null;) {
      health = await http('GET', `http://127.0.0.1:${apiPort}/health`).catch(() => undefined);
      if (health?.status === 200) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    if (health?.status !== 200) throw new Error(`the image command did not serve /health:\n${api.output()}`);
    expect(health.body).toEqual({ status: 'ok' });
    // The API serves before the store answers (requests needing it get 503 until then).
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      const details = await http('GET', `http://127.0.0.1:${apiPort}/health/details`);
      if (details.body.store === 'up') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    // A real request on the main host: a wallet session, written to the store.
    const agent = new TestAgent(`http://127.0.0.1:${port}`);
    expect(await agent.startSession()).toMatch(/\S/);
    // The compiled worker runs the ping workflow from the prebuilt bundle; the compiled API shows it.
    const temporal = createTemporal({
      temporalAddress: process.env.TEMPORAL_ADDRESS!,
      temporalNamespace: 'default',
      temporalTaskQueuePrefix: prefix,
    });
    try {
      const result = await runPing(temporal, `image-${Date.now()}`);
      expect(result.worker).toMatch(/\S/);
    } catch (err) {
      throw new Error(`${(err as Error).message}\nworker output:\n${worker.output()}`, { cause: err });
    } finally {
      await temporal.close();
    }
    const details = await http('GET', `http://127.0.0.1:${apiPort}/health/details`, {
      headers: { authorization: 'Bearer image-test-operator-token' },
    });
    expect(details.body).toMatchObject({ store: 'up', temporal: 'up', last_ping: { workflow_id: expect.any(String) } });
    expect(worker.child.exitCode).toBeNull();
    // The image's allocator settings reach the worker process (its native threads would each keep
    // an arena, and freed large blocks would stay resident).
    const environ = fs.readFileSync(`/proc/${worker.child.pid}/environ`, 'utf8');
    expect(environ.split('\0')).toContain('MALLOC_ARENA_MAX=2');
    // glibc cuts its tunables at each ':' in the block the process started with once it has read
    // them (the process and its children see the whole value).
    expect(environ.replace(/\0/g, ':')).toContain(
      ':GLIBC_TUNABLES=glibc.malloc.mmap_threshold=262144:glibc.malloc.trim_threshold=4194304:',
    );
  }, 300_000);

  it('refuses to start in production with a public dev key, naming the variable (exit 78)', async () => {
    const { child, output } = run(runtime.cmd, {
      PUBLIC_BASE_URL: 'https://api.example.test',
      PUBLIC_API_URL: 'https://bearer.example.test',
      X402_SETTLEMENT_PRIVATE_KEY: devPrivateKey(1),
    });
    expect(await waitForExit(child, 60_000)).toBe(78);
    expect(output()).toMatch(/X402_SETTLEMENT_PRIVATE_KEY: holds a key of the public development mnemonic/);
    expect(output()).not.toContain(devPrivateKey(1).slice(2));
  }, 70_000);
});
