/**
 * `make bench-cluster`: make bench's webhook-run figures (bench/runs.ts: trigger endpoint, trigger →
 * result p50, runs/s, the floor beside them) and its settlement figures (bench/purchase.ts) with
 * the multi-host cluster of `make cluster` as Temporal, against the dev server in the same session
 * on the same store, as ratios (cluster ÷ dev). Both servers stay up for the whole run and the
 * scripts alternate between them (dev, cluster, then cluster, dev, ...), so drift on the shared
 * machine hits both alike. Each script runs as a child process exactly as make bench runs it, with
 * TEMPORAL_ADDRESS naming the server.
 *
 * Needs the server binaries in .cache/bin (`make cluster` builds them once); not part of make
 * bench, which must not pay for a cold Go build.
 *
 * Knobs (env): CB_ROUNDS (2), CB_SCRIPTS (runs,purchase), and make bench's BENCH_* knobs, which
 * the child scripts read (defaults below are make bench's).
 */
import './silent-logs';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startFerretDb } from '../scripts/services/ferretdb';
import { ROOT } from '../scripts/services/paths';
import { startTemporalDev } from '../scripts/services/temporal';
import { ensureTemporalBinaries } from '../scripts/services/temporal-build';
import { startTemporalCluster } from '../scripts/services/temporal-cluster';
import { envNumber } from './common';
import { type Figures, readResult, resultDir, writeResult } from './result-file';

/** The figures compared, per script: the name make bench's report gives each. */
const COMPARED: Record<string, string[]> = {
  runs: [
    'runs_per_s',
    'run_p50_ms',
    'bare_workflow_per_s',
    'bare_workflow_p50_ms',
    'trigger_rps',
    'trigger_baseline_rps',
    'callback_after_completion_p50_ms',
  ],
  purchase: ['purchase_full_p50_ms', 'purchase_overhead_p50_ms', 'purchase_temporal_floor_p50_ms'],
};

const MAKE_BENCH_DEFAULTS: Record<string, string> = {
  BENCH_DURATION_MS: '4000',
  BENCH_WARMUP_MS: '1000',
  BENCH_ROUNDS: '1',
  BENCH_LATENCY_RUNS: '20',
  BENCH_THROUGHPUT_MS: '5000',
  BENCH_CALLBACK_RUNS: '10',
  BENCH_PURCHASE_ROUNDS: '10',
  BENCH_WORKER_QUEUES: 'all',
};

const log = (s: string) => process.stderr.write(`[bench cluster] ${s}\n`);
const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function runScript(
  script: string,
  server: { address: string; configDir?: string },
  mongodbUri: string,
  dir: string,
): Promise<Figures> {
  const env: NodeJS.ProcessEnv = {
    ...MAKE_BENCH_DEFAULTS,
    ...process.env,
    TEMPORAL_ADDRESS: server.address,
    // runs.ts counts the CPU of the cluster's hosts by their config folder, not the dev server's one process.
    ...(server.configDir ? { BENCH_TEMPORAL_CONFIG_DIR: server.configDir } : {}),
    BENCH_RESULT_DIR: dir,
    // purchase.ts starts a FerretDB of its own (it drops its database at the end); runs.ts shares ours.
    ...(script === 'runs' ? { MONGODB_URI: mongodbUri } : {}),
  };
  const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), [`bench/${script}.ts`], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`bench/${script}.ts against ${server.address} exited ${code}`);
  const previous = process.env.BENCH_RESULT_DIR;
  process.env.BENCH_RESULT_DIR = dir;
  try {
    return readResult(script).figures;
  } finally {
    if (previous === undefined) delete process.env.BENCH_RESULT_DIR;
    else process.env.BENCH_RESULT_DIR = previous;
  }
}

async function main(): Promise<void> {
  const rounds = envNumber('CB_ROUNDS', 2);
  const scripts = (process.env.CB_SCRIPTS ?? 'runs,purchase').split(',').filter((s) => s in COMPARED);
  const outDir = path.join(resultDir(), `cluster-${Date.now()}`);
  const stops: Array<() => Promise<unknown>> = [];
  try {
    await ensureTemporalBinaries(log);
    const [mongo, dev, cluster] = await Promise.all([
      startFerretDb(),
      startTemporalDev(),
      startTemporalCluster({ log }),
    ]);
    stops.push(mongo.stop, dev.stop, cluster.stop);
    const servers = {
      dev: { address: dev.address },
      cluster: { address: cluster.address, configDir: cluster.configDir },
    };
    const seen: Record<'dev' | 'cluster', Record<string, number[]>> = { dev: {}, cluster: {} };
    for (let round = 0; round < rounds; round++) {
      const order = (round % 2 === 0 ? ['dev', 'cluster'] : ['cluster', 'dev']) as Array<'dev' | 'cluster'>;
      for (const script of scripts)
        for (const name of order) {
          log(`round ${round + 1}/${rounds}: ${script} on ${name}`);
          const figures = await runScript(script, servers[name], mongo.uri, path.join(outDir, `${name}-${round}`));
          for (const key of COMPARED[script]) (seen[name][key] ??= []).push(figures[key]);
        }
    }
    const figures: Figures = {};
    const lines = ['| figure | dev server | cluster | cluster ÷ dev |', '|---|---:|---:|---:|'];
    for (const key of Object.keys(seen.dev)) {
      const [d, c] = [median(seen.dev[key]), median(seen.cluster[key])];
      figures[`${key}_dev`] = d;
      figures[`${key}_cluster`] = c;
      figures[`${key}_cluster_vs_dev`] = c / d;
      lines.push(`| ${key} | ${d.toFixed(1)} | ${c.toFixed(1)} | ${(c / d).toFixed(2)} |`);
    }
    const table = lines.join('\n');
    console.log(`medians of ${rounds} round(s) per server\n${table}`);
    fs.mkdirSync(outDir, { recursive: true });
    fs.writeFileSync(path.join(outDir, 'cluster-vs-dev.md'), `${table}\n`);
    writeResult('cluster', figures, { rounds, seen });
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
