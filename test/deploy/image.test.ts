import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mongoose from 'mongoose';
import { generatePrivateKey } from 'viem/accounts';
import { freePort } from '../../scripts/services/process';
import { devPrivateKey } from '../../shared/payments/chain/dev-accounts';
import { http } from '../support/http';

const ROOT = path.resolve(__dirname, '../..');

interface Image {
  env: Record<string, string>;
  copies: Array<{ from: string[]; to: string }>;
  cmd: string[];
  install: string;
}

/** The parts of the Dockerfile this test replays: ENV, COPY, the npm install line and CMD. */
function readDockerfile(): Image {
  const lines = fs
    .readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .map((l) => l.trim());
  const image: Image = { env: {}, copies: [], cmd: [], install: '' };
  for (const line of lines) {
    const [op, ...rest] = line.split(/\s+/);
    if (op === 'ENV') for (const kv of rest) image.env[kv.split('=')[0]] = kv.split('=').slice(1).join('=');
    if (op === 'COPY') image.copies.push({ from: rest.slice(0, -1), to: rest[rest.length - 1] });
    if (op === 'RUN' && /npm (ci|install)/.test(line)) image.install = line;
    if (op === 'CMD') image.cmd = JSON.parse(line.slice(4));
  }
  return image;
}

/**
 * node_modules as `npm ci --omit=dev` would leave it, without the network: the packages npm
 * lists as production ones, linked from the working copy, and their bin links.
 */
function productionNodeModules(target: string): void {
  const listed = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  const top = path.join(ROOT, 'node_modules') + path.sep;
  const packages = listed.filter(
    (p) => p.startsWith(top) && !p.slice(top.length).includes(`${path.sep}node_modules${path.sep}`),
  );
  fs.mkdirSync(path.join(target, '.bin'), { recursive: true });
  for (const dir of packages) {
    const name = dir.slice(top.length);
    fs.mkdirSync(path.dirname(path.join(target, name)), { recursive: true });
    fs.symlinkSync(dir, path.join(target, name));
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      name: string;
      bin?: string | Record<string, string>;
    };
    const bins =
      typeof manifest.bin === 'string' ? { [manifest.name.split('/').pop()!]: manifest.bin } : (manifest.bin ?? {});
    for (const [bin, file] of Object.entries(bins)) {
      const link = path.join(target, '.bin', bin);
      if (!fs.existsSync(link)) fs.symlinkSync(path.join(dir, file), link);
    }
  }
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

describe('the Docker image command path, replayed without a container engine', () => {
  const image = readDockerfile();
  let app: string;
  const children: ChildProcess[] = [];
  beforeAll(() => {
    app = fs.mkdtempSync(path.join(os.tmpdir(), 'image-'));
    for (const { from, to } of image.copies) {
      for (const src of from) {
        const dest = to.endsWith('/') || from.length > 1 ? path.join(app, to, path.basename(src)) : path.join(app, to);
        fs.cpSync(path.join(ROOT, src), dest, { recursive: true });
      }
    }
    productionNodeModules(path.join(app, 'node_modules'));
  });
  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null) child.kill('SIGTERM');
      await waitForExit(child, 5000);
    }
    fs.rmSync(app, { recursive: true, force: true });
    const conn = await mongoose
      .createConnection(process.env.MONGODB_URI!, { dbName: `${process.env.MONGODB_DB_NAME}_image` })
      .asPromise();
    await conn.dropDatabase().catch(() => undefined);
    await conn.close();
  });

  function run(extraEnv: Record<string, string>): { child: ChildProcess; output: () => string } {
    let output = '';
    const child = spawn(image.cmd[0], image.cmd.slice(1), {
      cwd: app,
      // Production requires its own secrets (jobs, tool vendor secrets, the metrics token); the image's own refusals are what is tested.
      env: {
        PATH: process.env.PATH,
        HOME: os.tmpdir(),
        ...image.env,
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

  it('installs production dependencies only and runs with NODE_ENV=production', () => {
    expect(image.env.NODE_ENV).toBe('production');
    expect(image.install).toMatch(/npm ci/);
    expect(image.cmd[0]).toBe('node_modules/.bin/tsx');
    // Before the fix tsx was a devDependency: the image had no node_modules/.bin/tsx.
    expect(fs.existsSync(path.join(app, image.cmd[0]))).toBe(true);
  });

  it('starts the API from the image layout against the test store and Temporal, and /health answers', async () => {
    const [port, apiPort] = [await freePort(), await freePort()];
    const { child, output } = run({
      HOST: '127.0.0.1',
      PORT: String(port),
      API_PORT: String(apiPort),
      MONGODB_URI: process.env.MONGODB_URI!,
      MONGODB_DB_NAME: `${process.env.MONGODB_DB_NAME}_image`,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
      PUBLIC_BASE_URL: 'https://api.example.test',
      PUBLIC_API_URL: 'https://bearer.example.test',
      X402_SETTLEMENT_PRIVATE_KEY: generatePrivateKey(),
      LOG_LEVEL: 'warn',
    });
    // tsx compiles the whole API in a fresh directory (no cache) before it listens: up to 150 s on a loaded machine.
    let health: Awaited<ReturnType<typeof http>> | undefined;
    for (const deadline = Date.now() + 150_000; Date.now() < deadline && child.exitCode === null;) {
      health = await http('GET', `http://127.0.0.1:${apiPort}/health`).catch(() => undefined);
      if (health?.status === 200) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    if (health?.status !== 200) throw new Error(`the image command did not serve /health:\n${output()}`);
    expect(health.body).toEqual({ status: 'ok' });
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      const details = await http('GET', `http://127.0.0.1:${apiPort}/health/details`);
      if (details.body.store === 'up') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await http('GET', `http://127.0.0.1:${apiPort}/health/details`)).body.store).toBe('up');
  }, 240_000);

  it('refuses to start in production with a public dev key, naming the variable (exit 78)', async () => {
    const { child, output } = run({
      PUBLIC_BASE_URL: 'https://api.example.test',
      PUBLIC_API_URL: 'https://bearer.example.test',
      X402_SETTLEMENT_PRIVATE_KEY: devPrivateKey(1),
    });
    expect(await waitForExit(child, 150_000)).toBe(78);
    expect(output()).toMatch(/X402_SETTLEMENT_PRIVATE_KEY: holds a key of the public development mnemonic/);
    expect(output()).not.toContain(devPrivateKey(1).slice(2));
  }, 160_000);
});
