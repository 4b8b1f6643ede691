/**
 * `make bench` (schedules): claim + advance round trips from 20 concurrent agents on one budget,
 * against a baseline measured in the same run: two requests to a bare one-insert endpoint per
 * round trip (the cheapest possible "two requests that each write once").
 *
 *   node_modules/.bin/tsx bench/schedules.ts
 *
 * Both paths are warmed up first (the schedules path on a budget of its own, WARM_UP_SCHEDULES).
 *
 * Knobs (env): BENCH_AGENTS (20) BENCH_DURATION_MS (10000) BENCH_SCHEDULES (4000: enough that the
 * agents do not use them up within the window; a run that does says so and fails)
 * BENCH_EXISTING_CLAIMS (0: handled claims of other schedules seeded first, to check flatness);
 * BENCH_SCHEDULES_PROFILE=1 CPU-profiles this process ('self' in the CPU table) over the baseline's and over claim + advance's
 * windows and prints summaries with the CPU each process spent per round trip;
 * MONGODB_URI / TEMPORAL_ADDRESS reuse servers you run instead of starting FerretDB / Temporal.
 *
 * Everything runs in this one process (API, a lease worker, the agents) against FerretDB and the
 * Temporal dev server, so figures are end to end on one machine; the ratio to the baseline is
 * the number to compare between runs.
 */
import './silent-logs';
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { jsonBody } from '../api/http/middleware/json-body';
import { requestContext } from '../api/http/middleware/request-context';
import { startServer } from '../api/http/server';
import { CACHE } from '../scripts/services/paths';
import { freePort } from '../scripts/services/process';
import { parseConfig } from '../shared/platform/config/index';
import { buildSchedule } from '../shared/schedules/new-schedule';
import { type Schedule, ScheduleRepository } from '../shared/schedules/repository';
import { WorkflowRepository } from '../shared/workflows/repository';
import { WorkspaceRepository } from '../shared/workspaces/repository';
import { createTemporal, ensureSearchAttributes } from '../temporal/connection';
import { runWorkers } from '../workers/run-workers';
import { schedulesQueue } from '../workers/schedules-queue';
import { envNumber, type LatencySummary, summarize } from './common';
import { startCpuProfile } from './cpu-profiler';
import { cpuMsByName } from './proc-cpu';
import { formatProfile, summarizeProfile } from './profile-summary';
import { writeResult } from './result-file';
import { benchDb, storeAndTemporal } from './services';

const AGENTS = envNumber('BENCH_AGENTS', 20);
const DURATION_MS = envNumber('BENCH_DURATION_MS', 10_000);
const SCHEDULES = envNumber('BENCH_SCHEDULES', 4000);
const EXISTING_CLAIMS = envNumber('BENCH_EXISTING_CLAIMS', 0);
/** Schedules of the warm-up budget: enough for the 1.5 s warm-up of claim + advance. */
const WARM_UP_SCHEDULES = 1000;
const PROFILE = process.env.BENCH_SCHEDULES_PROFILE === '1';
const log = (m: string) => process.stderr.write(`[bench:schedules] ${m}\n`);

/** Profiles `run` with the inspector when BENCH_SCHEDULES_PROFILE=1; prints where this process's CPU went and its store commands. */
async function profiled<T extends Slice>(
  name: string,
  db: { connection: { set(key: 'debug', value: unknown): unknown } },
  storeDebug: string | undefined,
  run: () => Promise<T>,
): Promise<T> {
  if (!PROFILE) return run();
  // The store's own profile over the same window (Go pprof, read with `go tool pprof -top <file>`).
  const storeProfile = storeDebug
    ? fetch(`http://${storeDebug}/debug/pprof/profile?seconds=${Math.floor(DURATION_MS / 2000)}`).then(async (r) =>
        Buffer.from(await r.arrayBuffer()),
      )
    : undefined;
  const commands = new Map<string, number>();
  db.connection.set('debug', (collection: string, method: string) =>
    commands.set(`${collection}.${method}`, (commands.get(`${collection}.${method}`) ?? 0) + 1),
  );
  const profiler = await startCpuProfile();
  const before = cpuMsByName();
  const out = await run();
  const after = cpuMsByName();
  const file = await profiler.stop(path.join(CACHE, 'bench', `schedules-${name}.cpuprofile`));
  db.connection.set('debug', false);
  const trips = out.latencies.length;
  const spent = [...after]
    .map(([p, ms]) => [p, (ms - (before.get(p) ?? 0)) / trips] as const)
    .filter(([, ms]) => ms >= 0.05)
    .sort((x, y) => y[1] - x[1]);
  console.log(
    `${name}: ${trips} round trips; CPU ms per round trip by process: ${spent.map(([p, ms]) => `${p} ${ms.toFixed(2)}`).join(', ')}`,
  );
  console.log(
    `store commands per round trip (mongoose's view): ${[...commands]
      .sort((x, y) => y[1] - x[1])
      .map(([k, n]) => `${k} ${(n / trips).toFixed(2)}`)
      .join(', ')}`,
  );
  console.log(formatProfile(summarizeProfile(file)));
  if (storeProfile) {
    const storeFile = path.join(CACHE, 'bench', `schedules-${name}-store.pprof`);
    fs.writeFileSync(storeFile, await storeProfile);
    console.log(`store (FerretDB) CPU profile over the same window: ${storeFile}\n`);
  }
  return out;
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

interface Slice {
  latencies: number[];
  seconds: number;
  errors: number;
  ranOut: boolean;
}

/** Runs `agents` closed loops of `roundTrip` for `ms`; latencies of completed round trips. */
async function closedLoop(agents: number, ms: number, roundTrip: (agent: number) => Promise<boolean>): Promise<Slice> {
  const latencies: number[] = [];
  let errors = 0;
  let ranOut = false;
  const end = Date.now() + ms;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: agents }, async (_, agent) => {
      while (Date.now() < end) {
        const start = performance.now();
        try {
          if (await roundTrip(agent)) latencies.push(performance.now() - start);
          else {
            ranOut = true; // nothing left to do
            return;
          }
        } catch {
          errors += 1;
        }
      }
    }),
  );
  return { latencies, seconds: (performance.now() - t0) / 1000, errors, ranOut };
}

/** Slices of one scenario taken together: round trips per second over their summed time. */
function combine(slices: Slice[]) {
  const latencies = slices.flatMap((x) => x.latencies);
  const seconds = slices.reduce((a, x) => a + x.seconds, 0);
  return {
    perSecond: latencies.length / seconds,
    latency: summarize(latencies),
    completed: latencies.length,
    errors: slices.reduce((a, x) => a + x.errors, 0),
    ranOut: slices.some((x) => x.ranOut),
    slices_per_s: slices.map((x) => Number((x.latencies.length / x.seconds).toFixed(1))),
  };
}

async function main(): Promise<number> {
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const storeDebug = PROFILE && !process.env.MONGODB_URI ? `127.0.0.1:${await freePort()}` : undefined;
    const services = await storeAndTemporal(stops, { debugAddr: storeDebug });
    const config = parseConfig({
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      MONGODB_URI: services.mongodbUri,
      TEMPORAL_ADDRESS: services.temporalAddress,
      MONGODB_DB_NAME: `bench_sched_${Date.now()}`,
      CREDENTIALS_ENCRYPTION_KEY: '0'.repeat(64),
    });
    const db = await benchDb(config, stops);
    const temporal = createTemporal(config);
    stops.unshift(() => temporal.close());
    await ensureSearchAttributes(temporal);
    const workers = await runWorkers(
      { config, db, temporal, identity: 'bench' },
      [schedulesQueue],
      config.temporalAddress,
    );
    stops.unshift(() => workers.shutdown());
    const server = await startServer({ config, db, temporal }, { main: 0, api: 0 });
    stops.unshift(() => server.stop());

    // Baseline: the cheapest endpoint that writes once (same parser, same connection).
    const bare = express();
    bare.use(requestContext, jsonBody);
    const sink = db.connection.collection('bench_insert');
    bare.post('/bench/insert', async (_req, res) => {
      await sink.insertOne({ at: new Date() });
      res.json({ ok: true });
    });
    const bareServer: Server = await new Promise((resolve) => {
      const s = bare.listen(0, '127.0.0.1', () => resolve(s));
    });
    stops.unshift(() => new Promise((r) => bareServer.close(() => r(undefined))));
    const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/bench/insert`;

    // One budget with a workflow and SCHEDULES interval schedules, all due now.
    const accounts = new WorkspaceRepository(db.models);
    const ws = await accounts.createWorkspace({ name: 'bench' });
    const { budget, budgetKey } = await accounts.createBudget({ workspaceId: ws._id, name: 'bench' });
    const { apiKey } = await accounts.createApiKey({ workspaceId: ws._id });
    const wf = await new WorkflowRepository(db.models).create(
      { name: 'bench', nodes: [{ id: 'a', type: 'template', template: 'x' }], edges: [] },
      { workspaceId: ws._id },
    );
    await accounts.addWorkflowToBudget(budget._id, wf._id);
    const now = new Date();
    const dueSchedules = (budgetId: string, n: number): Schedule[] =>
      Array.from({ length: n }, (_, i) => {
        const built = buildSchedule(
          {
            budgetId,
            workspaceId: ws._id,
            workflowId: wf._id,
            everySeconds: 3600,
            timezone: 'UTC',
            startAt: new Date(now.getTime() - 60_000 - i),
          },
          now,
        );
        if ('problem' in built) throw new Error(built.problem);
        return built.schedule;
      });
    await new ScheduleRepository(db.models).createMany(dueSchedules(budget._id, SCHEDULES));
    // A second budget for the schedules path's warm-up, so the measured one starts untouched.
    const warm = await accounts.createBudget({ workspaceId: ws._id, name: 'bench-warm-up' });
    await accounts.addWorkflowToBudget(warm.budget._id, wf._id);
    await new ScheduleRepository(db.models).createMany(dueSchedules(warm.budget._id, WARM_UP_SCHEDULES));
    for (let i = 0; i < EXISTING_CLAIMS; i += 1000) {
      // Claims already handled (claim, end, advance), of schedules not in play, as an old store has them.
      const n = Math.min(1000, EXISTING_CLAIMS - i);
      const rows = Array.from({ length: n }, (_, j) => {
        const base = new Date(now.getTime() - 86_400_000 - (i + j) * 1000);
        const id = `sch_old${String((i + j) % 997).padStart(17, '0')}:${base.toISOString()}:0`;
        return {
          _id: id,
          schedule_id: id.slice(0, 24),
          budget_id: budget._id,
          base_due_at: base,
          attempt: 0,
          due_at: base,
          skipped: 0,
          claim_token: `clm_old.${i + j}`,
          claimed_at: base,
          lease_expires_at: new Date(base.getTime() + 300_000),
        };
      });
      await db.models.scheduleClaims.collection.insertMany(rows as never[]);
      await db.models.scheduleClaimEnds.collection.insertMany(
        rows.map((r) => ({
          _id: r._id,
          schedule_id: r.schedule_id,
          kind: 'advanced',
          at: r.base_due_at,
          reason: null,
          note: null,
        })) as never[],
      );
    }
    if (EXISTING_CLAIMS > 0) log(`${EXISTING_CLAIMS} handled claims of other schedules seeded`);
    const bearer = (key: string) => ({ authorization: `Bearer ${Buffer.from(`${apiKey}:${key}`).toString('base64')}` });
    const auth = bearer(budgetKey);
    const base = `${server.mainUrl}/api/external/workflow-schedules`;
    log(`${SCHEDULES} due schedules on one budget; ${AGENTS} agents; ${DURATION_MS} ms per scenario`);

    // Warm-up of both paths (not measured): the bare insert, and claim + advance on the warm-up budget.
    await closedLoop(AGENTS, 1500, async () => (await post(bareUrl, {})).status === 200);
    await closedLoop(AGENTS, 1500, async () => {
      const c = await post(`${base}/claim`, {}, bearer(warm.budgetKey));
      if (c.status !== 200) return false;
      await post(
        `${base}/${c.body.data.schedule_id}/advance`,
        { due_at: c.body.data.due_at, claim_token: c.body.data.claim_token },
        bearer(warm.budgetKey),
      );
      return true;
    });

    const baselineTrip = async () => {
      const a = await post(bareUrl, { step: 'claim' });
      const b = await post(bareUrl, { step: 'advance' });
      if (a.status !== 200 || b.status !== 200) throw new Error('baseline failed');
      return true;
    };

    const claimed = new Map<string, number>();
    let conflicts = 0;
    let advancedOk = 0;
    const realTrip = async () => {
      const c = await post(`${base}/claim`, {}, auth);
      if (c.status === 409 && c.body.error === 'occurrence_not_due') return false;
      if (c.status !== 200) {
        conflicts += 1;
        throw new Error(`claim ${c.status} ${c.body.error_code}`);
      }
      const key = `${c.body.data.schedule_id}@${c.body.data.due_at}`;
      claimed.set(key, (claimed.get(key) ?? 0) + 1);
      const a = await post(
        `${base}/${c.body.data.schedule_id}/advance`,
        { due_at: c.body.data.due_at, claim_token: c.body.data.claim_token, outcome: 'success' },
        auth,
      );
      if (a.status !== 200 || a.body.data.already_advanced) throw new Error(`advance ${a.status} ${a.body.error_code}`);
      advancedOk += 1;
      return true;
    };
    // Interleaved halves, A B B A, so a change of the machine's load during the run weighs on both alike.
    const half = DURATION_MS / 2;
    const a1 = await profiled('baseline-1', db, storeDebug, () => closedLoop(AGENTS, half, baselineTrip));
    const b1 = await profiled('claim-advance-1', db, storeDebug, () => closedLoop(AGENTS, half, realTrip));
    const b2 = await closedLoop(AGENTS, half, realTrip);
    const a2 = await closedLoop(AGENTS, half, baselineTrip);
    const baseline = combine([a1, a2]);
    const real = combine([b1, b2]);

    // Integrity: no occurrence handed out twice, every claimed occurrence advanced exactly once.
    const doubles = [...claimed.values()].filter((n) => n > 1).length;
    // Advance records ride on the claims' `advanced` ends (docs/schedules.md#due-queue).
    const advances = await db.models.scheduleClaimEnds.countDocuments({
      kind: 'advanced',
      'advance.budget_id': budget._id,
    });
    const advancedSchedules = await db.models.workflowSchedules.countDocuments({
      budget_id: budget._id,
      advance_count: 1,
    });
    const overAdvanced = await db.models.workflowSchedules.countDocuments({
      budget_id: budget._id,
      advance_count: { $gt: 1 },
    });
    const lost = claimed.size - advances;
    const fmt = (l: LatencySummary) =>
      `p50 ${l.p50Ms.toFixed(1)} / p95 ${l.p95Ms.toFixed(1)} / p99 ${l.p99Ms.toFixed(1)} ms`;
    const result = {
      agents: AGENTS,
      duration_ms: DURATION_MS,
      baseline: {
        round_trips_per_s: baseline.perSecond,
        slices_per_s: baseline.slices_per_s,
        latency: baseline.latency,
        errors: baseline.errors,
      },
      claim_advance: {
        round_trips_per_s: real.perSecond,
        slices_per_s: real.slices_per_s,
        latency: real.latency,
        errors: real.errors,
        conflicts,
      },
      ratio: real.perSecond / baseline.perSecond,
      integrity: {
        claimed_occurrences: claimed.size,
        claimed_twice: doubles,
        advances_recorded: advances,
        advance_responses: advancedOk,
        schedules_advanced_once: advancedSchedules,
        schedules_advanced_more_than_once: overAdvanced,
        lost,
      },
    };
    console.log(
      [
        '',
        `schedules bench: ${AGENTS} agents on one budget, closed loop, ${DURATION_MS / 1000} s each`,
        `baseline (2 × one-insert)  ${baseline.perSecond.toFixed(1)} round trips/s   ${fmt(baseline.latency)}   errors ${baseline.errors}`,
        `claim + advance            ${real.perSecond.toFixed(1)} round trips/s   ${fmt(real.latency)}   errors ${real.errors}`,
        `ratio claim+advance / baseline: ${result.ratio.toFixed(3)}`,
        `integrity: ${claimed.size} occurrences claimed, ${doubles} claimed twice, ${advances} advance records for ${advancedOk} advance answers, ${overAdvanced} schedules advanced twice, ${lost} lost`,
        JSON.stringify(result),
      ].join('\n'),
    );
    if (real.ranOut) {
      // The window ended early, so the figure is a burst and its tail, not a rate.
      log(`the agents used up all ${SCHEDULES} due schedules before ${DURATION_MS} ms: raise BENCH_SCHEDULES`);
      return 1;
    }
    if (!(doubles === 0 && lost === 0 && overAdvanced === 0 && advances === advancedOk && real.errors === 0)) return 1;
    writeResult(
      'schedules',
      {
        schedules_claim_advance_vs_baseline: result.ratio,
        schedules_claim_advance_per_s: real.perSecond,
        schedules_claim_advance_baseline_per_s: baseline.perSecond,
      },
      result,
    );
    return 0;
  } finally {
    for (const stop of stops) await stop().catch((err) => log(`teardown: ${(err as Error).message}`));
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log((err as Error).stack ?? String(err));
    process.exit(1);
  },
);
