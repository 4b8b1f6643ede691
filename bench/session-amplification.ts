/**
 * Memory of a template amplification run through the real workers: a wallet session of the graph
 *   a = 'x' × 20000,  b = '{{nodes.a.output}}' × 12,  c = '{{nodes.b.output}}' × 1100   (a → b → c)
 * which must fail `node_output_too_large` at c. The workers are separate processes as in
 * production (compose's `worker` and `untrusted-worker`): one serving the sessions queue (the
 * session workflow), one the untrusted template queue (the node activities). After three sessions
 * of the same shape at a small size have warmed both, the big session runs while each process's
 * resident set is sampled every 20 ms; the figure is the largest growth of either process over its
 * resident set just before the session started.
 *
 *   node_modules/.bin/tsx bench/session-amplification.ts
 *
 * Knobs (env): BENCH_AMPLIFICATION_SESSIONS (1: big sessions run one after another, the growth is
 * over all of them); BENCH_WORKER_LOG_LEVEL (info, as compose runs the workers);
 * BENCH_WORKER_COMPILED=1 (dist/workers/main.js, as the image runs it); BENCH_WORKER_NODE_FLAGS
 * (node flags for both workers), BENCH_WORKER_NODE_FLAGS_sessions and
 * BENCH_WORKER_NODE_FLAGS_untrusted_node_template (for one: `--inspect=127.0.0.1:9301` lets a
 * sampling heap profile that keeps collected objects show where the garbage is made);
 * MONGODB_URI / TEMPORAL_ADDRESS reuse servers you run.
 * Target (issue 37): `amplification_worker_rss_growth_mb` ≤ 50.
 */
import './silent-logs';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CACHE } from '../scripts/services/paths';
import { parseConfig } from '../shared/platform/config/index';
import type { SessionState } from '../shared/workflow-sessions/types';
import type { WorkflowEdge, WorkflowNode } from '../shared/workflows/types';
import { createTemporal, ensureSearchAttributes } from '../temporal/connection';
import { endSession, querySession, startSessionWorkflow } from '../temporal/workflow-session/client';
import { envNumber } from './common';
import { writeResult } from './result-file';
import { benchDb, storeAndTemporal } from './services';

const SESSIONS = envNumber('BENCH_AMPLIFICATION_SESSIONS', 1);
const ROOT = path.resolve(__dirname, '..');
const log = (m: string) => process.stderr.write(`[bench:session-amplification] ${m}\n`);
const stops: Array<() => Promise<unknown>> = [];
const children: ChildProcess[] = [];

/** The graph of the issue, `a` of `width` characters. */
function graph(width: number): { nodes: WorkflowNode[]; edges: WorkflowEdge[] } {
  return {
    nodes: [
      { id: 'a', type: 'template', template: 'x'.repeat(width) },
      { id: 'b', type: 'template', template: '{{nodes.a.output}}'.repeat(12) },
      { id: 'c', type: 'template', template: '{{nodes.b.output}}'.repeat(1100) },
    ] as WorkflowNode[],
    edges: [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'c' },
    ],
  };
}

function startWorker(queues: string, env: NodeJS.ProcessEnv, logFile: string): ChildProcess {
  const out = openSync(logFile, 'a');
  const compiled = process.env.BENCH_WORKER_COMPILED === '1';
  const [command, entry] = compiled
    ? [process.execPath, 'dist/workers/main.js']
    : [path.join(ROOT, 'node_modules/.bin/tsx'), 'workers/main.ts'];
  const flags = (
    process.env[`BENCH_WORKER_NODE_FLAGS_${queues.replace(/\W/g, '_')}`] ??
    process.env.BENCH_WORKER_NODE_FLAGS ??
    ''
  )
    .split(' ')
    .filter(Boolean);
  return spawn(command, [...flags, entry, '--queues', queues], {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: process.env.BENCH_WORKER_LOG_LEVEL ?? 'info' },
    stdio: ['ignore', out, out],
    detached: true,
  });
}

/** Resident set in MB of a process group (tsx's launcher and its node), from /proc (Linux). */
function groupRssMb(pgrp: number): number {
  let kb = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgrp) continue;
      const line = readFileSync(`/proc/${pid}/status`, 'utf8')
        .split('\n')
        .find((l) => l.startsWith('VmRSS:'));
      kb = Math.max(kb, Number(line?.split(/\s+/)[1] ?? 0));
    } catch {
      // the process ended meanwhile
    }
  }
  return kb / 1024;
}

const TERMINAL = new Set(['completed', 'failed', 'setup_required', 'cancelled']);

async function main(): Promise<number> {
  const services = await storeAndTemporal(stops);
  const prefix = `benchamp${Date.now()}-`;
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    MONGODB_URI: services.mongodbUri,
    TEMPORAL_ADDRESS: services.temporalAddress,
    MONGODB_DB_NAME: `bench_amp_${Date.now()}`,
    TEMPORAL_TASK_QUEUE_PREFIX: prefix,
    CREDENTIALS_ENCRYPTION_KEY: '0'.repeat(64),
  };
  const config = parseConfig({ ...process.env, ...env });
  await benchDb(config, stops);
  const temporal = createTemporal(config);
  stops.unshift(() => temporal.close());
  await ensureSearchAttributes(temporal);

  const logDir = path.join(CACHE, 'bench');
  mkdirSync(logDir, { recursive: true });
  const workerLog = path.join(logDir, `session-amplification-workers-${Date.now()}.log`);
  log(`worker logs: ${workerLog}`);
  const workers = {
    sessions: startWorker('sessions', env, workerLog),
    untrusted_template: startWorker('untrusted-node-template', env, workerLog),
  };
  children.push(...Object.values(workers));

  let n = 0;
  const session = async (width: number): Promise<SessionState> => {
    const id = `wss_${prefix.replace(/\W/g, '')}${n++}`;
    await startSessionWorkflow(temporal, {
      sessionId: id,
      workflowId: 'wf_amplification',
      version: '1.0.0',
      wallet: '0x' + 'a5'.repeat(20),
      instanceId: id,
      ...graph(width),
      idleTimeoutMs: 10 * 60_000,
      startedAt: new Date().toISOString(),
    });
    for (;;) {
      const state = await querySession(temporal, id).catch(() => null);
      if (state && TERMINAL.has(state.run.status)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    return endSession(temporal, id);
  };

  log('warming the workers: three small sessions of the same shape');
  for (let i = 0; i < 3; i++) {
    const s = await session(10);
    if (s.run.status !== 'completed') throw new Error(`a small session ended ${s.run.status}: ${s.run.error}`);
  }
  await new Promise((r) => setTimeout(r, 2000));
  const before = Object.fromEntries(Object.entries(workers).map(([k, c]) => [k, groupRssMb(c.pid!)]));
  const peak = { ...before };
  const sampler = setInterval(() => {
    for (const [k, c] of Object.entries(workers)) peak[k] = Math.max(peak[k], groupRssMb(c.pid!));
  }, 20);
  const errors: string[] = [];
  const t0 = Date.now();
  for (let i = 0; i < SESSIONS; i++) {
    const s = await session(20_000);
    if (s.run.status !== 'failed' || s.run.error_code !== 'node_output_too_large')
      errors.push(`session ${i} ended ${s.run.status} ${s.run.error_code}`);
    else log(`session ${i}: ${s.run.error} (${s.run.error?.length} characters)`);
  }
  await new Promise((r) => setTimeout(r, 2000));
  clearInterval(sampler);
  const growth = Object.fromEntries(Object.entries(workers).map(([k]) => [k, peak[k] - before[k]]));
  const worst = Math.max(...Object.values(growth));
  log(
    `rss before ${JSON.stringify(before)} MB, peak ${JSON.stringify(peak)} MB: growth ${JSON.stringify(growth)} MB in ${Date.now() - t0} ms`,
  );
  if (errors.length) {
    log(`errors: ${errors.join('; ')}`);
    return 1;
  }
  writeResult(
    'session-amplification',
    {
      amplification_worker_rss_growth_mb: worst,
      amplification_sessions_worker_rss_growth_mb: growth.sessions,
      amplification_template_worker_rss_growth_mb: growth.untrusted_template,
    },
    { sessions: SESSIONS, rss_before_mb: before, rss_peak_mb: peak },
  );
  return 0;
}

main()
  .catch((err) => {
    log(`failed: ${(err as Error).stack ?? err}`);
    return 1;
  })
  .then(async (code) => {
    for (const c of children) {
      try {
        process.kill(-c.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    for (const stop of stops) await stop().catch(() => undefined);
    process.exit(code);
  });
