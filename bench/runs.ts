/**
 * `make bench` (webhook runs):
 *   (a) trigger endpoint requests/s against a baseline that inserts one document and starts one
 *       workflow (same process, store and Temporal), interleaved rounds A, B, B' per round;
 *   (b) trigger → the agent holds the result, p50/p99 of a one-node (template) workflow, one run
 *       at a time, driven as agents drive runs: POST trigger, then GET the run with wait_seconds;
 *   (c) runs completed per second, the same way, with one and with two worker processes;
 *   (p) a population of agents polling every 100 ms without the wait: the store commands it costs
 *       this API process per run and per second of waiting (and the same for agents that wait);
 *   (d) callback delivered after completion, p50/p99 (loopback HTTPS receiver);
 * beside (b) and (c), in the same run on the same Temporal server: the engine's floor, a bare
 * one-activity workflow on a minimal SDK worker in a process of its own (bench/floor-worker.ts),
 * started and awaited through the Temporal client; one at a time interleaved with (b), and with
 * the same clients before and after (c) with one worker; and the peak RSS of the API and worker
 * processes. BENCH_OLD_FLOOR=1 also measures the floor as it was (the ping workflow on the
 * project's worker, runs awaited through Temporal rather than the API).
 *
 *   node_modules/.bin/tsx bench/runs.ts
 *
 * Knobs (env): BENCH_CONCURRENCY (16) BENCH_ROUNDS (3) BENCH_ROUND_MS (4000) BENCH_LATENCY_RUNS (60)
 * BENCH_THROUGHPUT_MS (10000) BENCH_CALLBACK_RUNS (30) BENCH_PHASES (a,b,c,p,d) BENCH_OLD_FLOOR (0);
 * MONGODB_URI / TEMPORAL_ADDRESS reuse servers you run.
 *
 * The API runs in this process. Workers are separate processes (`workers/main.ts --queues
 * runs,node-template,callbacks`) on the same queue prefix, as in production. During (a) no worker
 * serves the queues the runs are started on (a second API instance with its own queue prefix), so
 * (a) measures the endpoint alone, like the baseline, whose workflow no worker runs either.
 */
import './silent-logs';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { jsonBody } from '../api/http/middleware/json-body';
import { requestContext } from '../api/http/middleware/request-context';
import { type RunningServer, startServer } from '../api/http/server';
import { imageEnv } from '../scripts/services/dockerfile';
import { CACHE } from '../scripts/services/paths';
import type { Db } from '../shared/composition/store';
import { type AppConfig, parseConfig } from '../shared/platform/config/index';
import { createTemporal, ensureSearchAttributes, type TemporalHandle } from '../temporal/connection';
import { runPing } from '../temporal/ping/client';
import { pingWorkflow } from '../temporal/ping/workflows';
import { startHttpsReceiver } from '../test/support/https-receiver';
import { envNumber, type LatencySummary, summarize } from './common';
import { greeterGroup } from './greeter-group';
import { writeResult } from './result-file';
import { benchDb, storeAndTemporal } from './services';
import { formatTimeline, medianTimeline, type Timeline, timelineOf } from './timeline';

const CONCURRENCY = envNumber('BENCH_CONCURRENCY', 16);
const ROUNDS = envNumber('BENCH_ROUNDS', 3);
const ROUND_MS = envNumber('BENCH_ROUND_MS', 4000);
const LATENCY_RUNS = envNumber('BENCH_LATENCY_RUNS', 60);
const THROUGHPUT_MS = envNumber('BENCH_THROUGHPUT_MS', 10_000);
const CALLBACK_RUNS = envNumber('BENCH_CALLBACK_RUNS', 30);
/** BENCH_PHASES=a,c runs only those parts (default all). */
const PHASES = new Set((process.env.BENCH_PHASES ?? 'a,b,c,p,d').split(',').map((p) => p.trim()));
const OLD_FLOOR = process.env.BENCH_OLD_FLOOR === '1';
/** How long an agent's GET holds for the run's end, and how often a polling agent asks. */
const WAIT_SECONDS = 30;
const POLL_MS = 100;
const TERMINAL = new Set(['completed', 'failed', 'setup_required', 'cancelled']);
const ROOT = path.resolve(__dirname, '..');
// BENCH_WORKER_QUEUES=all: the memory of a worker serving every queue under the same load.
const WORKER_QUEUES = process.env.BENCH_WORKER_QUEUES ?? 'runs,node-template,callbacks,system';
const log = (m: string) => process.stderr.write(`[bench:runs] ${m}\n`);
const fmt = (l: LatencySummary) => `p50 ${l.p50Ms.toFixed(1)} / p99 ${l.p99Ms.toFixed(1)} ms (n=${l.count})`;

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** `concurrency` closed loops of `call` for `ms`: completions per second and their latency. */
async function closedLoop(concurrency: number, ms: number, call: () => Promise<void>) {
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + ms;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const start = performance.now();
        try {
          await call();
          latencies.push(performance.now() - start);
        } catch {
          errors += 1;
        }
      }
    }),
  );
  return { perSecond: latencies.length / ((performance.now() - t0) / 1000), latency: summarize(latencies), errors };
}

/** The minimal SDK worker of the floor, in a process of its own; resolves once it polls. */
async function startFloorWorker(address: string, taskQueue: string, logFile: string): Promise<ChildProcess> {
  const out = openSync(logFile, 'a');
  const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['bench/floor-worker.ts', address, taskQueue], {
    cwd: ROOT,
    env: process.env,
    stdio: ['ignore', 'pipe', out],
    detached: true,
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`floor worker exited with ${code} (log ${logFile})`)));
  });
  return child;
}

/** A worker process on the bench's store and queue prefix; its own process group (tsx runs node as a child). */
function startWorker(env: NodeJS.ProcessEnv, logFile: string): ChildProcess {
  const out = openSync(logFile, 'a');
  // BENCH_WORKER_COMPILED=1: the compiled build's worker as the image runs it (npm run build first),
  // with the image's environment under the bench's own (its allocator settings among them).
  const compiled = process.env.BENCH_WORKER_COMPILED === '1';
  const [command, entry] = compiled
    ? [process.execPath, 'dist/workers/main.js']
    : [path.join(ROOT, 'node_modules/.bin/tsx'), 'workers/main.ts'];
  return spawn(command, [entry, '--queues', WORKER_QUEUES], {
    cwd: ROOT,
    env: { ...(compiled ? imageEnv() : {}), ...process.env, ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', out, out],
    detached: true,
  });
}
const signal = (c: ChildProcess, s: NodeJS.Signals) => {
  try {
    process.kill(-c.pid!, s);
  } catch {
    // already gone
  }
};

/** CPU seconds (user + system) so far of the processes a predicate picks, from /proc (Linux). */
function cpuSeconds(pick: (cmd: string, pgrp: number, pid: number) => boolean): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (pick(cmd, Number(f[2]), Number(pid))) ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks / 100;
}

/** Peak resident set (VmHWM) in MB of a process, from /proc (Linux). */
function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  if (!line) throw new Error(`no VmHWM for process ${pid}`);
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** The largest peak RSS among the processes of a process group (a worker: tsx's launcher and its node). */
function groupPeakRssMb(pgrp: number): number {
  let peak = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgrp)
        peak = Math.max(peak, peakRssMb(Number(pid)));
    } catch {
      // the process ended meanwhile
    }
  }
  return peak;
}

/** Whole-machine jiffies from /proc/stat: busy (user+nice+system+irq+softirq), iowait, total. */
function machineTicks(): { busy: number; iowait: number; total: number } {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return {
    busy: user + nice + system + irq + softirq,
    iowait,
    total: user + nice + system + idle + iowait + irq + softirq + steal,
  };
}

async function baselineServer(db: Db, temporal: TemporalHandle): Promise<{ url: string; close: () => Promise<void> }> {
  const app = express();
  app.use(requestContext, jsonBody);
  const sink = db.connection.collection('bench_insert');
  app.post('/bench/insert-start', async (req, res) => {
    const id = `bench_${randomBytes(12).toString('hex')}`;
    await sink.insertOne({ _id: id as never, body: req.body, at: new Date() });
    await temporal.client.workflow.start(pingWorkflow, { taskQueue: temporal.queue('bench-unserved'), workflowId: id });
    res.json({ ok: true, id });
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench/insert-start`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const stops: Array<() => Promise<unknown>> = [];
const children: ChildProcess[] = [];
let floorWorker: ChildProcess | undefined;
let tornDown: Promise<void> | undefined;

function teardown(): Promise<void> {
  tornDown ??= (async () => {
    [...children, ...(floorWorker ? [floorWorker] : [])].forEach((c) => signal(c, 'SIGKILL'));
    for (const stop of stops) {
      const limit = new Promise((_, reject) =>
        setTimeout(() => reject(new Error('stop took over 10 s')), 10_000).unref(),
      );
      await Promise.race([stop(), limit]).catch((err) => log(`teardown: ${(err as Error).message}`));
    }
  })();
  return tornDown;
}

async function main(): Promise<number> {
  const loadStart = os.loadavg();
  try {
    const services = await storeAndTemporal(stops);
    const receiver = await startHttpsReceiver();
    stops.unshift(() => receiver.close());
    const prefix = `benchruns${Date.now()}-`;
    const env: NodeJS.ProcessEnv = {
      NODE_ENV: 'development',
      LOG_LEVEL: 'silent',
      MONGODB_URI: services.mongodbUri,
      TEMPORAL_ADDRESS: services.temporalAddress,
      MONGODB_DB_NAME: `bench_runs_${Date.now()}`,
      TEMPORAL_TASK_QUEUE_PREFIX: prefix,
      CREDENTIALS_ENCRYPTION_KEY: '0'.repeat(64),
      // Test-only: the receiver is on loopback with a certificate made now.
      CALLBACK_ALLOW_LOOPBACK: 'true',
      CALLBACK_CA_FILE: receiver.caFile,
    };
    const config = parseConfig({ ...process.env, ...env });
    const idleConfig: AppConfig = parseConfig({ ...process.env, ...env, TEMPORAL_TASK_QUEUE_PREFIX: `${prefix}idle-` });
    const db = await benchDb(config, stops);
    const temporal = createTemporal(config);
    const idleTemporal = createTemporal(idleConfig);
    stops.unshift(
      () => temporal.close(),
      () => idleTemporal.close(),
    );
    await ensureSearchAttributes(temporal);
    const servers: RunningServer[] = [
      await startServer({ config, db, temporal }, { main: 0, api: 0 }),
      await startServer({ config: idleConfig, db, temporal: idleTemporal }, { main: 0, api: 0 }),
    ];
    stops.unshift(...servers.map((s) => () => s.stop()));
    const [served, idle] = servers;
    const baseline = await baselineServer(db, idleTemporal);
    stops.unshift(baseline.close);

    const { token, workflowId } = await greeterGroup(db, config.credentialsKey);
    const auth = { authorization: `Bearer ${token}` };
    const triggerOn = (server: RunningServer, body: Record<string, unknown>) =>
      post(`${server.mainUrl}/api/agent-webhooks/${workflowId}/trigger`, body, auth);

    // (a) Endpoint throughput, interleaved A / B / B' rounds after a warm-up of each.
    let trig: Record<string, any> | null = null;
    let errors = 0;
    if (PHASES.has('a')) {
      const A = async () => {
        const r = await post(baseline.url, { prompt: 'bench' });
        if (r.status !== 200) throw new Error(`baseline ${r.status}`);
      };
      const B = async () => {
        const r = await triggerOn(idle, { prompt: 'bench' });
        if (r.status !== 200) throw new Error(`trigger ${r.status} ${r.body.error}`);
      };
      let n = 0;
      const Bkey = async () => {
        const r = await triggerOn(idle, { prompt: 'bench', request_id: `req-${process.pid}-${n++}` });
        if (r.status !== 200) throw new Error(`trigger ${r.status} ${r.body.error}`);
      };
      log(`(a) trigger vs insert+start: concurrency ${CONCURRENCY}, ${ROUNDS} rounds of ${ROUND_MS} ms each`);
      for (const f of [A, B, Bkey]) await closedLoop(CONCURRENCY, 1500, f);
      const rounds: Array<{ A: number; B: number; Bkey: number }> = [];
      const lat: Record<'A' | 'B' | 'Bkey', number[]> = { A: [], B: [], Bkey: [] };
      let errorsA = 0;
      let errorsB = 0;
      for (let r = 0; r < ROUNDS; r++) {
        const round = { A: 0, B: 0, Bkey: 0 };
        for (const [name, f] of [
          ['A', A],
          ['B', B],
          ['Bkey', Bkey],
        ] as const) {
          const res = await closedLoop(CONCURRENCY, ROUND_MS, f);
          round[name] = res.perSecond;
          lat[name].push(res.latency.p50Ms);
          if (name === 'A') errorsA += res.errors;
          else errorsB += res.errors;
        }
        rounds.push(round);
        log(`  round ${r + 1}: A ${round.A.toFixed(1)}/s  B ${round.B.toFixed(1)}/s  B' ${round.Bkey.toFixed(1)}/s`);
      }
      const mean = (k: 'A' | 'B' | 'Bkey') => rounds.reduce((s, r) => s + r[k], 0) / rounds.length;
      trig = {
        baseline_rps: mean('A'),
        trigger_rps: mean('B'),
        trigger_with_request_id_rps: mean('Bkey'),
        ratio: mean('B') / mean('A'),
        ratio_with_request_id: mean('Bkey') / mean('A'),
        rounds,
        errors: { baseline: errorsA, trigger: errorsB },
      };
      errors += errorsA + errorsB;
    }

    // Workers: separate processes on the served prefix.
    const workerEnv = { ...env, LOG_LEVEL: 'warn' };
    const logDir = path.join(CACHE, 'bench');
    mkdirSync(logDir, { recursive: true });
    const workerLog = path.join(logDir, `runs-workers-${Date.now()}.log`);
    log(`worker logs: ${workerLog}`);
    const startRun = async (body: Record<string, unknown>) => {
      const r = await triggerOn(served, body);
      if (r.status !== 200) throw new Error(`trigger ${r.status} ${r.body.error}`);
      return r.body.data.run.run_id as string;
    };
    const result = (runId: string) => temporal.client.workflow.getHandle(runId).result();
    // As agents see a run: GET it through the API, holding for its end, or polling every 100 ms.
    const getRun = async (runId: string, query: string) => {
      const res = await fetch(`${served.mainUrl}/api/agent-webhooks/runs/${runId}${query}`, { headers: auth });
      const body = (await res.json()) as any;
      if (res.status !== 200) throw new Error(`get run ${res.status} ${body.error}`);
      return body.data.run as { status: string };
    };
    const untilEnd = async (runId: string, how: 'wait' | 'poll') => {
      for (;;) {
        const run = await getRun(runId, how === 'wait' ? `?wait_seconds=${WAIT_SECONDS}` : '');
        if (TERMINAL.has(run.status)) {
          if (run.status !== 'completed') throw new Error(`run ${runId} ended ${run.status}`);
          return;
        }
        if (how === 'poll') await new Promise((r) => setTimeout(r, POLL_MS));
      }
    };
    const agentRun = async (prompt: string, how: 'wait' | 'poll' = 'wait') => {
      const runId = await startRun({ prompt });
      await untilEnd(runId, how);
      return runId;
    };
    children.push(startWorker(workerEnv, workerLog));
    // The engine's floor: the bare workflow on a minimal worker of its own, awaited through Temporal.
    const floorQueue = `${prefix}floor`;
    floorWorker = await startFloorWorker(config.temporalAddress, floorQueue, workerLog);
    let floors = 0;
    const floorId = () => `floor-${prefix}${floors++}`;
    const floorRun = (workflowId = floorId()) =>
      temporal.client.workflow.execute('oneActivityWorkflow', { taskQueue: floorQueue, workflowId });
    log('(b) one worker process: waiting for it to run a first run');
    await result(await startRun({ prompt: 'warm-up' }));
    for (let i = 0; i < 5; i++) await agentRun('warm-up');
    for (let i = 0; i < 5; i++) await floorRun();

    // (b) trigger → the agent holds the result, one at a time, interleaved with the floor
    // (start → result of the bare workflow on the minimal worker): drift cancelled per pair.
    const e2e: number[] = [];
    const bare: number[] = [];
    const old = { run: [] as number[], ping: [] as number[] };
    let pings = 0;
    const ping = () => runPing(temporal, `bench-${prefix}${pings++}`);
    if (OLD_FLOOR) for (let i = 0; i < 5; i++) await ping();
    const timed: Array<{ id: string; sent: number; done: number; run: boolean }> = [];
    for (let i = 0; PHASES.has('b') && i < LATENCY_RUNS; i++) {
      const t0 = performance.now();
      const sent = Date.now();
      const runId = await agentRun(`latency ${i}`);
      timed.push({ id: runId, sent, done: Date.now(), run: true });
      e2e.push(performance.now() - t0);
      const p0 = performance.now();
      const id = floorId();
      const floorSent = Date.now();
      await floorRun(id);
      timed.push({ id, sent: floorSent, done: Date.now(), run: false });
      bare.push(performance.now() - p0);
      if (OLD_FLOOR) {
        const o0 = performance.now();
        await result(await startRun({ prompt: `old ${i}` }));
        old.run.push(performance.now() - o0);
        const q0 = performance.now();
        await ping();
        old.ping.push(performance.now() - q0);
      }
    }
    const latency = summarize(e2e);
    const bareLatency = summarize(bare);
    log(
      `  trigger → the agent holds the result ${fmt(latency)}; floor (bare workflow, minimal worker) ${fmt(bareLatency)}`,
    );
    if (OLD_FLOOR)
      log(
        `  as measured before: trigger → Temporal result ${fmt(summarize(old.run))}; ping on the project's worker ${fmt(summarize(old.ping))}`,
      );
    const timelines = { run: [] as Timeline[], bare: [] as Timeline[] };
    for (const x of timed)
      (x.run ? timelines.run : timelines.bare).push(await timelineOf(temporal.client, x.id, x.sent, x.done));
    const where = { run: medianTimeline(timelines.run), bare: medianTimeline(timelines.bare) };
    if (timed.length)
      log(
        `  where the time goes (medians, ms): run: ${formatTimeline(where.run)}\n                                     floor: ${formatTimeline(where.bare)}`,
      );

    // (p) store commands this API process spends per run: agents that wait, agents that poll
    // every 100 ms; the trigger's own share is measured alone (on the instance no worker serves).
    const storeCost = async (how: 'wait' | 'poll' | 'trigger') => {
      let commands = 0;
      let waitingMs = 0;
      let triggers = 0;
      const byCommand: Record<string, number> = {};
      db.connection.set('debug', (collection: string, method: string) => {
        commands++;
        byCommand[`${collection}.${method}`] = (byCommand[`${collection}.${method}`] ?? 0) + 1;
      });
      const r = await closedLoop(CONCURRENCY, THROUGHPUT_MS / 2, async () => {
        if (how === 'trigger') {
          const res = await triggerOn(idle, { prompt: 'store cost' });
          if (res.status !== 200) throw new Error(`trigger ${res.status} ${res.body.error}`);
          return;
        }
        triggers++;
        const runId = await startRun({ prompt: `store cost ${how}` });
        const w0 = performance.now();
        await untilEnd(runId, how);
        waitingMs += performance.now() - w0;
      });
      db.connection.set('debug', false);
      errors += r.errors;
      return {
        runs: r.latency.count,
        triggers: how === 'trigger' ? r.latency.count : triggers,
        commands,
        byCommand,
        waitingMs,
        runs_per_s: r.perSecond,
        errors: r.errors,
      };
    };
    let cost: Record<string, unknown> | null = null;
    if (PHASES.has('p')) {
      const trig0 = await storeCost('trigger');
      const perTrigger = trig0.commands / trig0.runs;
      const reading = (c: Awaited<ReturnType<typeof storeCost>>) => ({
        runs: c.runs,
        runs_per_s: c.runs_per_s,
        store_commands_per_run: c.commands / c.runs,
        /** Beyond the trigger's: what reading the run until its end cost, per run and per second of waiting. */
        reading_commands_per_run: (c.commands - perTrigger * c.triggers) / c.runs,
        reading_commands_per_run_s: (c.commands - perTrigger * c.triggers) / (c.waitingMs / 1000),
        mean_wait_ms: c.waitingMs / c.runs,
        /** Reads of the run itself (its document and its cancel record), without the subtraction's noise. */
        run_read_commands_per_run:
          ((c.byCommand['webhook_runs.findOne'] ?? 0) + (c.byCommand['webhook_run_cancels.findOne'] ?? 0)) / c.runs,
        by_command: c.byCommand,
      });
      const poll = reading(await storeCost('poll'));
      const wait = reading(await storeCost('wait'));
      cost = { trigger_commands_per_run: perTrigger, trigger_by_command: trig0.byCommand, poll, wait };
      log(
        `(p) store commands per run, this API process: trigger ${perTrigger.toFixed(1)}; reading until the end: polling every ${POLL_MS} ms ${poll.reading_commands_per_run.toFixed(2)} (${poll.reading_commands_per_run_s.toFixed(2)} per run-second of waiting, mean wait ${poll.mean_wait_ms.toFixed(0)} ms), waiting ${wait.reading_commands_per_run.toFixed(2)}; of them run reads: polling ${poll.run_read_commands_per_run.toFixed(2)}, waiting ${wait.run_read_commands_per_run.toFixed(2)}`,
      );
    }

    // (d) callback delivered after completion, one at a time.
    const afterCompletion: number[] = [];
    const afterTrigger: number[] = [];
    for (let i = 0; PHASES.has('d') && i < CALLBACK_RUNS; i++) {
      const before = receiver.received.length;
      const t0 = Date.now();
      const runId = await startRun({ prompt: `callback ${i}`, callback_url: `${receiver.origin}/hook` });
      await receiver.waitFor(before + 1, 60_000);
      const got = receiver.received[before];
      const completedAt = (await db.models.webhookRuns
        .findById(runId, { completed_at: 1 })
        .lean<{ completed_at: Date }>()
        .exec())!.completed_at;
      afterCompletion.push(got.at - completedAt.getTime());
      afterTrigger.push(got.at - t0);
    }
    const callback = { after_completion: summarize(afterCompletion), after_trigger: summarize(afterTrigger) };
    log(`  callback received after completion ${fmt(callback.after_completion)}`);

    // (c) runs/s: CONCURRENCY clients each trigger a run and wait for it, closed loop. (A burst
    // of a few hundred queued runs instead measures FerretDB's SQLite lock: every run's store
    // activities queue for its single writer, SQLITE_BUSY, retries.)
    const temporalPort = config.temporalAddress.split(':')[1];
    const mongoPort = new URL(config.mongodbUri).port;
    const clusterConfigDir = process.env.BENCH_TEMPORAL_CONFIG_DIR;
    const cpuGroups = {
      // A cluster's hosts (bench/cluster.ts names their config folder), else the dev server on that port.
      temporal_server: (cmd: string) =>
        clusterConfigDir
          ? cmd.includes('--service') && cmd.includes(`${clusterConfigDir}/`)
          : cmd.includes('server start-dev') && cmd.includes(`--port ${temporalPort}`),
      ferretdb: (cmd: string) => cmd.includes('ferretdb') && cmd.includes(`:${mongoPort}`),
      workers: (_: string, pgrp: number) => children.some((c) => c.pid === pgrp),
      api_and_clients: (_: string, __: number, pid: number) => pid === process.pid,
    };
    const cpuNow = () => Object.fromEntries(Object.entries(cpuGroups).map(([k, pick]) => [k, cpuSeconds(pick)]));
    const throughput = async () => {
      const ids: string[] = [];
      const cpu0 = cpuNow();
      const m0 = machineTicks();
      const t0 = performance.now();
      const r = await closedLoop(CONCURRENCY, THROUGHPUT_MS, async () => {
        ids.push(await agentRun('load'));
      });
      const seconds = (performance.now() - t0) / 1000;
      const cpu1 = cpuNow();
      const m1 = machineTicks();
      const machine = {
        busy_pct: Math.round((100 * (m1.busy - m0.busy)) / (m1.total - m0.total)),
        iowait_pct: Math.round((100 * (m1.iowait - m0.iowait)) / (m1.total - m0.total)),
      };
      const cpu_pct_of_one_core = Object.fromEntries(
        Object.keys(cpu0).map((k) => [k, Math.round((100 * (cpu1[k] - cpu0[k])) / seconds)]),
      );
      const docs = await db.models.webhookRuns
        .find({ _id: { $in: ids }, status: 'completed' }, { run_metadata: 1 })
        .lean<Array<{ run_metadata: { nodes: Array<{ worker?: string }> } }>>()
        .exec();
      const byWorker: Record<string, number> = {};
      for (const d of docs) {
        const w = d.run_metadata.nodes[0]?.worker ?? '?';
        byWorker[w] = (byWorker[w] ?? 0) + 1;
      }
      errors += r.errors;
      return {
        runs_per_s: r.perSecond,
        trigger_to_completed: r.latency,
        errors: r.errors,
        template_nodes_by_worker: byWorker,
        cpu_pct_of_one_core,
        machine,
      };
    };
    let one: Awaited<ReturnType<typeof throughput>> | null = null;
    let two: Awaited<ReturnType<typeof throughput>> | null = null;
    const bareRuns: Array<{ per_s: number; p50_ms: number; errors: number }> = [];
    const oldRuns: Array<{ per_s: number; p50_ms: number; errors: number }> = [];
    if (PHASES.has('c')) {
      log(
        `(c) runs/s: ${CONCURRENCY} agents, trigger and GET with wait, ${THROUGHPUT_MS} ms per worker count; the floor half that before and after`,
      );
      const loop = async (call: () => Promise<unknown>) => {
        const r = await closedLoop(CONCURRENCY, THROUGHPUT_MS / 2, async () => void (await call()));
        errors += r.errors;
        return { per_s: r.perSecond, p50_ms: r.latency.p50Ms, errors: r.errors };
      };
      bareRuns.push(await loop(() => floorRun()));
      if (OLD_FLOOR) oldRuns.push(await loop(ping));
      one = await throughput();
      if (OLD_FLOOR) oldRuns.push(await loop(async () => result(await startRun({ prompt: 'old load' }))));
      bareRuns.push(await loop(() => floorRun()));
      if (OLD_FLOOR)
        log(
          `  as measured before: ping on the project's worker ${oldRuns[0].per_s.toFixed(1)}/s; runs awaited through Temporal ${oldRuns[1].per_s.toFixed(1)}/s`,
        );
      log(`  floor workflows/s before and after: ${bareRuns.map((b) => b.per_s.toFixed(1)).join(', ')}`);
      log(
        `  one worker: ${one.runs_per_s.toFixed(1)} runs/s; cpu % of one core ${JSON.stringify(one.cpu_pct_of_one_core)}; machine ${JSON.stringify(one.machine)}`,
      );
      children.push(startWorker(workerEnv, workerLog));
      // Both processes polling: warm until the new one has taken a node.
      const firstWorker = Object.keys(one.template_nodes_by_worker)[0];
      let shared = false;
      for (let i = 0; i < 100; i++) {
        const runId = await agentRun('warm-up 2');
        const doc = await db.models.webhookRuns
          .findById(runId, { run_metadata: 1 })
          .lean<{ run_metadata: { nodes: Array<{ worker?: string }> } }>()
          .exec();
        const worker = doc!.run_metadata.nodes[0]?.worker;
        if (i >= 5 && worker && worker !== firstWorker) {
          shared = true;
          break;
        }
      }
      if (!shared) log('  the second worker took no run in 100 warm-up runs');
      two = await throughput();
      log(
        `  two workers: ${two.runs_per_s.toFixed(1)} runs/s; cpu % of one core ${JSON.stringify(two.cpu_pct_of_one_core)}; machine ${JSON.stringify(two.machine)}`,
      );
    }

    // Peak RSS so far: the API shares this process with the load clients (an upper bound for it).
    const rss = { api_and_clients_mb: peakRssMb(process.pid), workers_mb: children.map((c) => groupPeakRssMb(c.pid!)) };
    const barePerS = bareRuns.length ? bareRuns.reduce((a, b) => a + b.per_s, 0) / bareRuns.length : NaN;
    const out = {
      machine: {
        cores: os.cpus().length,
        node: process.version,
        loadavg_at_start: loadStart,
        loadavg_at_end: os.loadavg(),
      },
      concurrency: CONCURRENCY,
      trigger: trig,
      trigger_to_completed: latency.count ? latency : null,
      where_the_time_goes: timed.length ? where : null,
      runs_per_second:
        one && two ? { one_worker: one, two_workers: two, ratio_two_to_one: two.runs_per_s / one.runs_per_s } : null,
      callback: callback.after_completion.count ? callback : null,
      bare_workflow: { latency_one_at_a_time: bareLatency, throughput: bareRuns, per_s: barePerS },
      store_cost: cost,
      old_floor: OLD_FLOOR
        ? {
            run_awaited_through_temporal: summarize(old.run),
            ping_on_project_worker: summarize(old.ping),
            throughput: { ping_per_s: oldRuns[0]?.per_s, runs_awaited_through_temporal_per_s: oldRuns[1]?.per_s },
          }
        : null,
      peak_rss: rss,
    };
    const l = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' ');
    const lines = [
      '',
      `webhook runs bench: ${os.cpus().length} cores, load average at start ${l(loadStart)}, at end ${l(os.loadavg())}`,
    ];
    if (trig) {
      lines.push(
        `(a) baseline insert+start      ${trig.baseline_rps.toFixed(1)} req/s (concurrency ${CONCURRENCY}, ${ROUNDS} interleaved rounds)`,
        `    trigger (no request_id)    ${trig.trigger_rps.toFixed(1)} req/s   ratio ${trig.ratio.toFixed(2)} (target ≥ 0.5)`,
        `    trigger (with request_id)  ${trig.trigger_with_request_id_rps.toFixed(1)} req/s   ratio ${trig.ratio_with_request_id.toFixed(2)}`,
        `    errors: baseline ${trig.errors.baseline}, trigger ${trig.errors.trigger}`,
      );
    }
    if (out.trigger_to_completed)
      lines.push(`(b) trigger → the agent holds the result (one template node, one run at a time): ${fmt(latency)}`);
    if (one && two)
      lines.push(
        `(c) runs/s, ${CONCURRENCY} agents triggering and waiting through the API: one worker ${one.runs_per_s.toFixed(1)}, two workers ${two.runs_per_s.toFixed(1)} (×${(two.runs_per_s / one.runs_per_s).toFixed(2)}); p50 trigger → completed ${one.trigger_to_completed.p50Ms.toFixed(0)} / ${two.trigger_to_completed.p50Ms.toFixed(0)} ms; nodes by worker ${JSON.stringify(two.template_nodes_by_worker)}`,
      );
    if (bareRuns.length)
      lines.push(
        `    floor (bare workflow, minimal worker): ${barePerS.toFixed(1)}/s with ${CONCURRENCY} clients (before / after: ${bareRuns.map((b) => b.per_s.toFixed(1)).join(' / ')}); runs/s ÷ floor = ${((one?.runs_per_s ?? NaN) / barePerS).toFixed(2)} (target ≥ 0.6)`,
      );
    if (bareLatency.count)
      lines.push(
        `    floor one at a time: ${fmt(bareLatency)}; run p50 ÷ floor p50 = ${(latency.p50Ms / bareLatency.p50Ms).toFixed(2)} (target ≤ 1.0, p50 ≤ 40 ms)`,
      );
    lines.push(
      `peak RSS: API process (with the load clients) ${rss.api_and_clients_mb.toFixed(0)} MB; workers ${rss.workers_mb.map((m) => m.toFixed(0)).join(', ')} MB`,
    );
    if (out.callback)
      lines.push(
        `(d) callback received after completed_at: ${fmt(callback.after_completion)}; after the trigger: ${fmt(callback.after_trigger)}`,
      );
    lines.push(JSON.stringify(out));
    console.log(lines.join('\n'));
    if (errors !== 0) return 1;
    // The merged report's figures: all phases must have run (writeResult refuses a missing one).
    writeResult(
      'runs',
      {
        runs_per_s: one?.runs_per_s ?? NaN,
        bare_workflow_per_s: barePerS,
        runs_vs_bare_workflow: (one?.runs_per_s ?? NaN) / barePerS,
        run_p50_ms: latency.p50Ms,
        bare_workflow_p50_ms: bareLatency.p50Ms,
        run_p50_vs_bare_workflow: latency.p50Ms / bareLatency.p50Ms,
        trigger_vs_baseline: trig?.ratio ?? NaN,
        trigger_rps: trig?.trigger_rps ?? NaN,
        trigger_baseline_rps: trig?.baseline_rps ?? NaN,
        callback_after_completion_p50_ms: callback.after_completion.p50Ms,
        polling_store_commands_per_run_s: (cost?.poll as any)?.reading_commands_per_run_s ?? NaN,
        polling_store_commands_per_run: (cost?.poll as any)?.reading_commands_per_run ?? NaN,
        waiting_store_commands_per_run: (cost?.wait as any)?.reading_commands_per_run ?? NaN,
        api_peak_rss_mb: rss.api_and_clients_mb,
        worker_peak_rss_mb: Math.max(...rss.workers_mb),
      },
      out,
    );
    return 0;
  } finally {
    await teardown();
  }
}

// Ctrl-C or a timeout: still stop the workers, servers and child services.
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => void teardown().then(() => process.exit(130)));

main().then(
  (code) => process.exit(code),
  (err) => {
    log((err as Error).stack ?? String(err));
    process.exit(1);
  },
);
