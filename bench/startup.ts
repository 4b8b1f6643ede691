/**
 * Start time and resident memory of the API and of a worker serving every queue (`--queues all`),
 * run from the TypeScript sources by tsx (as the image did before it was compiled: with a cold
 * tsx cache, as in a fresh container, and a warm one) and compiled (`node dist/...`, as the image
 * runs now). Figures, not a timed test: each variant starts BENCH_STARTUP_ROUNDS times (median).
 * Start: spawn until the API's /health answers, or until the worker logs `workers running` (its
 * pollers are up). Memory: resident (VmRSS) 3 s after that, and the peak (VmHWM) up to then.
 *
 *   npm run build && node_modules/.bin/tsx bench/startup.ts
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../scripts/services/paths';
import { freePort } from '../scripts/services/process';
import { writeResult } from './result-file';
import { storeAndTemporal } from './services';

const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 3);
const SETTLE_MS = 3000;

type Role = 'api' | 'worker';
interface Variant {
  name: 'tsx_cold' | 'tsx' | 'compiled';
  command(role: Role): string[];
  /** A fresh TMPDIR per start: tsx keeps its compile cache there. */
  coldCache?: true;
}

const ENTRY = { api: 'api/main.ts', worker: 'workers/main.ts' } as const;
const COMPILED = { api: 'dist/api/main.js', worker: 'dist/workers/main.js' } as const;
const ARGS = { api: [], worker: ['--queues', 'all'] } as const;

const ALL_VARIANTS: Variant[] = [
  { name: 'tsx_cold', coldCache: true, command: (r) => ['--import', 'tsx', ENTRY[r], ...ARGS[r]] },
  { name: 'tsx', command: (r) => ['--import', 'tsx', ENTRY[r], ...ARGS[r]] },
  { name: 'compiled', command: (r) => [COMPILED[r], ...ARGS[r]] },
];
/** BENCH_STARTUP_VARIANTS=tsx,compiled: only those (the report needs all three). */
const VARIANTS = ALL_VARIANTS.filter((v) =>
  (process.env.BENCH_STARTUP_VARIANTS ?? 'tsx_cold,tsx,compiled').split(',').includes(v.name),
);

function memoryMb(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(/\s(\d+) kB/.exec(status.split('\n').find((l) => l.startsWith(key)) ?? '')?.[1]);
  return { rss: kb('VmRSS:') / 1024, peak: kb('VmHWM:') / 1024 };
}

function waitForExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
}

async function startOnce(
  variant: Variant,
  role: Role,
  env: NodeJS.ProcessEnv,
): Promise<{ startMs: number; rssMb: number; peakMb: number }> {
  const [port, apiPort] = [await freePort(), await freePort()];
  const tmp = variant.coldCache ? fs.mkdtempSync(path.join(os.tmpdir(), 'startup-tsx-')) : undefined;
  const t0 = performance.now();
  const child = spawn(process.execPath, variant.command(role), {
    cwd: ROOT,
    env: {
      ...env,
      ...(tmp ? { TMPDIR: tmp } : {}),
      PORT: String(port),
      API_PORT: String(apiPort),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-20_000)));
  child.stderr!.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-20_000)));
  try {
    let ready = false;
    for (const deadline = Date.now() + 240_000; !ready && Date.now() < deadline && child.exitCode === null;) {
      if (role === 'worker') ready = output.includes('workers running');
      else
        ready = await fetch(`http://127.0.0.1:${apiPort}/health`, { signal: AbortSignal.timeout(1000) }).then(
          (r) => r.status === 200,
          () => false,
        );
      if (!ready) await new Promise((r) => setTimeout(r, 25));
    }
    if (!ready) throw new Error(`${variant.name} ${role} did not start:\n${output.slice(-3000)}`);
    const startMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const { rss, peak } = memoryMb(child.pid!);
    return { startMs, rssMb: rss, peakMb: peak };
  } finally {
    child.kill('SIGTERM');
    await waitForExit(child);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  if (VARIANTS.some((v) => v.name === 'compiled'))
    for (const file of Object.values(COMPILED))
      if (!fs.existsSync(path.join(ROOT, file))) throw new Error(`${file} missing: run npm run build first`);
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const { mongodbUri, temporalAddress } = await storeAndTemporal(stops);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MONGODB_URI: mongodbUri,
      MONGODB_DB_NAME: 'bench_startup',
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_TASK_QUEUE_PREFIX: `startup-${process.pid}-`,
    };
    const figures: Record<string, number> = {};
    const detail: Record<string, unknown> = { rounds: ROUNDS, settle_ms: SETTLE_MS, loadavg: os.loadavg() };
    for (const role of ['api', 'worker'] as const) {
      for (const variant of VARIANTS) {
        const samples = [];
        for (let i = 0; i < ROUNDS; i++) samples.push(await startOnce(variant, role, env));
        const key = `${role}_${variant.name}`;
        figures[`${key}_start_ms`] = median(samples.map((s) => s.startMs));
        figures[`${key}_rss_mb`] = median(samples.map((s) => s.rssMb));
        figures[`${key}_peak_rss_mb`] = median(samples.map((s) => s.peakMb));
        detail[key] = samples;
        process.stderr.write(
          `${key}: start ${figures[`${key}_start_ms`].toFixed(0)} ms, rss ${figures[`${key}_rss_mb`].toFixed(0)} MB, peak ${figures[`${key}_peak_rss_mb`].toFixed(0)} MB\n`,
        );
      }
    }
    writeResult('startup', figures, detail);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
