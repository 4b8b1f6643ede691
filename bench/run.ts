/**
 * `make bench`: requests per second and latency of (A) a bare one-insert endpoint and (B) the
 * real signed POST /api/external/credits/balance, side by side in one run. See bench/README.md.
 *
 *   node_modules/.bin/tsx bench/run.ts [--profile]
 *
 * Knobs (env): BENCH_CONCURRENCY (16) BENCH_WARMUP_MS (2000) BENCH_DURATION_MS (10000)
 * BENCH_AGENTS (20) BENCH_MAX_ENVELOPES (100000) BENCH_PROFILE=1 (same as --profile)
 * BENCH_STRICT=1 (exit 3 when a target is missed) BENCH_TIMEOUT_MS (170000, hard stop);
 * MONGODB_URI / TEMPORAL_ADDRESS reuse servers you run instead of starting FerretDB / Temporal.
 */
import './silent-logs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startFerretDb } from '../scripts/services/ferretdb';
import { CACHE, ROOT } from '../scripts/services/paths';
import { startTemporalDev } from '../scripts/services/temporal';
import type { Db } from '../shared/composition/store';
import { createDb } from '../shared/composition/store';
import { LedgerStore } from '../shared/credits/ledger-store';
import { type Child, productionBenchEnv, spawnTs, startBenchServer } from './children';
import {
  type EnvelopeFile,
  envNumber,
  type LatencySummary,
  type LoadPlan,
  type LoadResult,
  type ScenarioPlan,
  type ScenarioResult,
  summarize,
} from './common';
import { formatProfile, type ProfileSummary, summarizeProfile } from './profile-summary';
import { writeResult } from './result-file';
import type { SignJob } from './sign-worker';

const OPTS = {
  concurrency: envNumber('BENCH_CONCURRENCY', 16),
  warmupMs: envNumber('BENCH_WARMUP_MS', 2000),
  durationMs: envNumber('BENCH_DURATION_MS', 10000),
  agents: envNumber('BENCH_AGENTS', 20),
  maxEnvelopes: envNumber('BENCH_MAX_ENVELOPES', 100_000),
  timeoutMs: envNumber('BENCH_TIMEOUT_MS', 170_000),
  profile: process.argv.includes('--profile') || process.env.BENCH_PROFILE === '1',
  strict: process.env.BENCH_STRICT === '1',
};
const TARGET = { ratio: 0.5, p99Ms: 25 };
const OUT_DIR = path.join(CACHE, 'bench');
const STAMP = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
const DB_NAME = `bench_${STAMP}`;
const PROBE_ENVELOPES = 4000;

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

// ---------------------------------------------------------------- teardown, whatever happens
const cleanups: Array<{ name: string; fn: () => Promise<unknown> | unknown }> = [];
let tearingDown: Promise<void> | undefined;
function teardown(): Promise<void> {
  tearingDown ??= (async () => {
    for (const { name, fn } of cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        log(`teardown ${name}: ${(err as Error).message}`);
      }
    }
  })();
  return tearingDown;
}
let aborting = false;
const abort = (why: string, code: number) => {
  aborting = true;
  log(why);
  void teardown().finally(() => process.exit(code));
};
process.once('SIGINT', () => abort('interrupted', 130));
process.once('SIGTERM', () => abort('terminated', 143));
const watchdog = setTimeout(() => abort(`gave up after ${OPTS.timeoutMs} ms (BENCH_TIMEOUT_MS)`, 124), OPTS.timeoutMs);

async function startServer(env: NodeJS.ProcessEnv, profileDir?: string): Promise<{ child: Child; port: number }> {
  const started = await startBenchServer({
    ...env,
    ...(profileDir ? { BENCH_STAGES: '1', BENCH_PROFILE_DIR: profileDir } : {}),
  });
  cleanups.push({ name: 'server', fn: started.child.stop });
  return started;
}

async function runLoad(name: string, plan: Omit<LoadPlan, 'resultFile'>, dir: string): Promise<LoadResult> {
  const planFile = path.join(dir, `${name}.plan.json`);
  const resultFile = path.join(dir, `${name}.result.json`);
  fs.writeFileSync(planFile, JSON.stringify({ ...plan, resultFile }));
  const child = spawnTs('bench/load.ts', [planFile], process.env);
  cleanups.push({ name: `load ${name}`, fn: child.stop });
  const budget = plan.scenarios.reduce((a, s) => a + s.warmupMs + s.durationMs, 0) + 30_000;
  const timer = setTimeout(() => void child.stop(), budget);
  const code = await child.exit;
  clearTimeout(timer);
  if (code !== 0) throw new Error(`load generator (${name}) exited with ${code}:\n${child.tail()}`);
  return JSON.parse(fs.readFileSync(resultFile, 'utf8')) as LoadResult;
}

// ---------------------------------------------------------------- agents and envelopes
interface Agent {
  key: Hex;
  wallet: string;
  session: string;
  balance: number;
}

async function makeAgents(baseUrl: string, db: Db): Promise<Agent[]> {
  const ledger = new LedgerStore(db.models);
  return Promise.all(
    Array.from({ length: OPTS.agents }, async (_, i) => {
      const key = generatePrivateKey();
      const account = privateKeyToAccount(key);
      const res = await fetch(`${baseUrl}/api/external/auth/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ wallet_address: account.address }),
      });
      const body = (await res.json()) as { data?: { session_nonce: string } };
      if (res.status !== 200 || !body.data)
        throw new Error(`session for agent ${i}: ${res.status} ${JSON.stringify(body)}`);
      const wallet = account.address.toLowerCase();
      // Distinct balances per wallet, so a response for the wrong wallet counts as a mismatch.
      const granted = await ledger.grant({
        wallet,
        credits: 1000 + 37 * i,
        creditType: 'admin_grant',
        grantId: `bench-${STAMP}-${i}`,
      });
      return { key, wallet, session: body.data.session_nonce, balance: granted.balance_after };
    }),
  );
}

/** Signs envelopes [from, to) on one worker thread per core; returns them in order. */
async function sign(agents: Agent[], from: number, to: number): Promise<Array<[number, string]>> {
  const workers = Math.max(1, Math.min(os.cpus().length, Math.ceil((to - from) / 500)));
  const per = Math.ceil((to - from) / workers);
  const entry = path.join(__dirname, 'sign-worker.ts');
  const parts = await Promise.all(
    Array.from({ length: workers }, (_, w) => {
      const job: SignJob = {
        keys: agents.map((a) => a.key),
        sessions: agents.map((a) => a.session),
        runId: STAMP,
        from: from + w * per,
        to: Math.min(to, from + (w + 1) * per),
      };
      return new Promise<Array<[number, string]>>((resolve, reject) => {
        // tsx does not hook worker threads started from a .ts path; register it inside the worker.
        const worker = new Worker(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, {
          eval: true,
          workerData: job,
        });
        worker.once('message', (m: { items?: Array<[number, string]>; error?: string }) => {
          void worker.terminate();
          if (m.items) resolve(m.items);
          else reject(new Error(m.error));
        });
        worker.once('error', reject);
      });
    }),
  );
  return parts.flat();
}

function writeEnvelopes(file: string, agents: Agent[], items: Array<[number, string]>): void {
  const data: EnvelopeFile = { wallets: agents.map((a) => a.wallet), expected: agents.map((a) => a.balance), items };
  fs.writeFileSync(file, JSON.stringify(data));
}

// ---------------------------------------------------------------- report
interface Report {
  when: string;
  machine: { cores: number; cpu: string; node: string; loadavgAtStart: number[]; loadavgAtEnd: number[] };
  settings: typeof OPTS & { agents: number; envelopesSigned: number; signMs: number; database: string; order: string };
  probe: Pick<ScenarioResult, 'rps' | 'latency' | 'total'>;
  scenarios: ScenarioResult[];
  A: { rps: number; rpsRuns: number[]; latency: LatencySummary };
  B: { rps: number; latency: LatencySummary };
  ratio: number;
  errors: number;
  mismatches: number;
  valid: boolean;
  targets: { ratio: number; p99Ms: number; ratioMet: boolean; p99Met: boolean };
  profile?: ProfileSummary;
}

const f = (n: number | undefined, d = 1) => (n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(d));

function table(r: Report): string {
  const head = [
    'scenario',
    'rps',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'max ms',
    'requests',
    'errors',
    'mismatch',
    'srv cpu%',
    'load cpu%',
    'machine%',
  ];
  const row = (name: string, rps: number, l: LatencySummary, extra: Array<string | number | undefined>) => [
    name,
    f(rps, 0),
    f(l.p50Ms, 2),
    f(l.p95Ms, 2),
    f(l.p99Ms, 2),
    f(l.maxMs, 1),
    ...extra.map((x) => (typeof x === 'number' ? f(x, 0) : (x ?? '-'))),
  ];
  const rows = r.scenarios.map((s) =>
    row(s.name, s.rps, s.latency, [
      String(s.total.requests),
      String(s.total.errors),
      s.kind === 'balance' ? String(s.total.mismatches) : '-',
      s.serverCpuPct,
      s.loadCpuPct,
      s.machineBusyPct,
    ]),
  );
  rows.push(row('A (mean of A runs)', r.A.rps, r.A.latency, ['', '', '', undefined, undefined, undefined]));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((x) => String(x[i]).length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const ok = (b: boolean) => (b ? 'met' : 'MISSED');
  return [
    '',
    `machine: ${r.machine.cores} cores (${r.machine.cpu}), node ${r.machine.node}, load avg at start ${r.machine.loadavgAtStart.map((x) => x.toFixed(2)).join(' ')}`,
    `load: closed loop, concurrency ${r.settings.concurrency}, keep-alive, warm-up ${r.settings.warmupMs} ms + measured ${r.settings.durationMs} ms per scenario, order ${r.settings.order}`,
    '',
    line(head),
    line(head.map((_, i) => '-'.repeat(widths[i]))),
    ...rows.map((x) => line(x.map(String))),
    '',
    `B/A rps ratio: ${f(r.ratio, 2)}   (target >= ${TARGET.ratio}: ${ok(r.targets.ratioMet)})`,
    `B p99:         ${f(r.B.latency.p99Ms, 2)} ms   (target < ${TARGET.p99Ms} ms at concurrency ${r.settings.concurrency}: ${ok(r.targets.p99Met)})`,
    `errors: ${r.errors}   balance mismatches: ${r.mismatches}   (probe and warm-ups included)${r.valid ? '' : '   RUN NOT VALID'}`,
    `envelopes: ${r.settings.envelopesSigned} pre-signed in ${f(r.settings.signMs / 1000)} s, ${r.scenarios.filter((s) => s.kind === 'balance').reduce((a, s) => a + s.envelopesUsed, 0)} used by the measured B run`,
  ].join('\n');
}

// ---------------------------------------------------------------- main
async function main(): Promise<number> {
  const loadavgAtStart = os.loadavg();
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  cleanups.push({ name: 'temp files', fn: () => fs.rmSync(tmp, { recursive: true, force: true }) });

  // Stores: reuse MONGODB_URI / TEMPORAL_ADDRESS, or start our own (data under .cache/bench, removed after).
  const t0 = Date.now();
  const temporalDb = path.join(OUT_DIR, `temporal-${STAMP}.db`);
  const [mongo, temporal] = await Promise.all([
    process.env.MONGODB_URI ? undefined : startFerretDb(),
    process.env.TEMPORAL_ADDRESS ? undefined : startTemporalDev({ dbFile: temporalDb }),
  ]);
  if (mongo) {
    cleanups.push({ name: 'ferretdb', fn: mongo.stop });
  }
  if (temporal) {
    cleanups.push({ name: 'temporal data', fn: () => fs.rmSync(temporalDb, { force: true }) });
    cleanups.push({ name: 'temporal', fn: temporal.stop });
  }
  const mongodbUri = process.env.MONGODB_URI ?? mongo!.uri;
  const temporalAddress = process.env.TEMPORAL_ADDRESS ?? temporal!.address;
  log(
    `stores up in ${Date.now() - t0} ms (mongo ${mongodbUri}${mongo ? ' FerretDB' : ''}, temporal ${temporalAddress}), database ${DB_NAME}`,
  );

  const db = createDb({ uri: mongodbUri, dbName: DB_NAME });
  cleanups.push({
    name: 'database',
    fn: async () => {
      await db.connection.dropDatabase().catch((err: Error) => log(`drop ${DB_NAME}: ${err.message}`));
      await db.close();
    },
  });
  await db.ready(30_000);

  const serverEnv = productionBenchEnv({
    ...process.env,
    LOG_LEVEL: 'silent',
    MONGODB_URI: mongodbUri,
    MONGODB_DB_NAME: DB_NAME,
    TEMPORAL_ADDRESS: temporalAddress,
  });
  const profileDir = OPTS.profile ? path.join(OUT_DIR, `profile-${STAMP}`) : undefined;
  const { port } = await startServer(serverEnv, profileDir);
  const baseUrl = `http://127.0.0.1:${port}`;
  log(
    `server on ${baseUrl}${OPTS.profile ? ' (stage timing + CPU profile of B: figures are NOT the reference ones)' : ''}`,
  );

  const agents = await makeAgents(baseUrl, db);
  log(`${agents.length} agents with sessions and credits (${agents[0].balance}..${agents[agents.length - 1].balance})`);

  // Size the envelope supply: a short probe of B says how fast the service consumes them.
  let signMs = 0;
  let ts = Date.now();
  const probeItems = await sign(agents, 0, PROBE_ENVELOPES);
  signMs += Date.now() - ts;
  log(`signed ${PROBE_ENVELOPES} probe envelopes in ${Date.now() - ts} ms`);
  const probeFile = path.join(tmp, 'probe-envelopes.json');
  writeEnvelopes(probeFile, agents, probeItems);
  const insertBody = probeItems[0][1].replace(/"request_id":"[^"]*"/, '"request_id":"bench-baseline"');
  const probe = await runLoad(
    'probe',
    {
      port,
      concurrency: OPTS.concurrency,
      insertBody,
      envelopesFile: probeFile,
      scenarios: [{ name: 'probe B', kind: 'balance', warmupMs: 500, durationMs: 1500 }],
    },
    tmp,
  );
  const probeRps = probe.scenarios[0].rps;
  const needed = Math.ceil((probeRps * (OPTS.warmupMs + OPTS.durationMs)) / 1000);
  const count = Math.min(OPTS.maxEnvelopes, Math.max(5000, 2 * needed + 2000));
  ts = Date.now();
  const items = await sign(agents, PROBE_ENVELOPES, PROBE_ENVELOPES + count);
  signMs += Date.now() - ts;
  log(
    `probe: B ~${probeRps.toFixed(0)} rps; signed ${count} envelopes in ${Date.now() - ts} ms (about ${needed} needed)`,
  );
  const envelopesFile = path.join(tmp, 'envelopes.json');
  writeEnvelopes(envelopesFile, agents, items);

  // A, B, A: the baseline is the mean of the runs either side of B, which cancels slow drift
  // (store growth, a noisy neighbour) to first order.
  const scenario = (name: string, kind: ScenarioPlan['kind']): ScenarioPlan => ({
    name,
    kind,
    warmupMs: OPTS.warmupMs,
    durationMs: OPTS.durationMs,
    profile: OPTS.profile && kind === 'balance',
  });
  const main = await runLoad(
    'main',
    {
      port,
      concurrency: OPTS.concurrency,
      insertBody,
      envelopesFile,
      scenarios: [
        scenario('A1 bare insert', 'insert'),
        scenario('B signed balance', 'balance'),
        scenario('A2 bare insert', 'insert'),
      ],
    },
    tmp,
  );

  const aRuns = main.scenarios.filter((s) => s.kind === 'insert');
  const b = main.scenarios.find((s) => s.kind === 'balance')!;
  const aRps = aRuns.reduce((x, s) => x + s.rps, 0) / aRuns.length;
  const all = [...probe.scenarios, ...main.scenarios];
  const errors = all.reduce((x, s) => x + s.total.errors, 0);
  const mismatches = all.reduce((x, s) => x + s.total.mismatches, 0);
  const ratio = b.rps / aRps;
  const report: Report = {
    when: new Date().toISOString(),
    machine: {
      cores: os.cpus().length,
      cpu: os.cpus()[0]?.model ?? '?',
      node: process.version,
      loadavgAtStart,
      loadavgAtEnd: os.loadavg(),
    },
    settings: {
      ...OPTS,
      envelopesSigned: PROBE_ENVELOPES + count,
      signMs,
      database: DB_NAME,
      order: 'A1, B, A2 (A = mean of A1 and A2)',
    },
    probe: { rps: probe.scenarios[0].rps, latency: probe.scenarios[0].latency, total: probe.scenarios[0].total },
    scenarios: main.scenarios,
    A: {
      rps: aRps,
      rpsRuns: aRuns.map((s) => s.rps),
      latency: summarize(aRuns.flatMap((s) => main.latencies[s.name])),
    },
    B: { rps: b.rps, latency: b.latency },
    ratio,
    errors,
    mismatches,
    valid: errors === 0 && mismatches === 0 && !all.some((s) => s.exhausted),
    targets: { ...TARGET, ratioMet: ratio >= TARGET.ratio, p99Met: b.latency.p99Ms < TARGET.p99Ms },
  };

  if (b.stages) {
    const stageLines = Object.entries(b.stages).map(
      ([k, v]) =>
        `  ${k.padEnd(62)} n=${String(v.count).padStart(6)}  mean ${f(v.meanMs, 3).padStart(7)} ms  p50 ${f(v.p50Ms, 3).padStart(7)}  p99 ${f(v.p99Ms, 3).padStart(7)}`,
    );
    const verify = Object.entries(b.stages).find(([k]) => k.startsWith('B verify'))?.[1];
    const insert = Object.entries(b.stages).find(([k]) => k.startsWith('B request-id insert'))?.[1];
    if (verify && insert)
      stageLines.push(
        `  ${'=> session lookup + message + signature recovery (verify - insert)'.padEnd(62)} mean ${f(verify.meanMs - insert.meanMs, 3).padStart(7)} ms`,
      );
    log(`stage timings in the server over B's measured window:\n${stageLines.join('\n')}`);
  }
  if (b.profileFile) {
    report.profile = summarizeProfile(b.profileFile);
    log(formatProfile(report.profile));
  }

  console.log(table(report));
  if (all.some((s) => s.exhausted)) console.log('ran out of pre-signed envelopes: raise BENCH_MAX_ENVELOPES');
  for (const s of all) for (const e of s.total.errorSamples) console.log(`  ${s.name}: ${e}`);
  fs.writeFileSync(path.join(OUT_DIR, 'latest.json'), JSON.stringify(report, null, 2));
  fs.writeFileSync(
    path.join(OUT_DIR, `run-${STAMP}${OPTS.profile ? '-profile' : ''}.json`),
    JSON.stringify(report, null, 2),
  );
  console.log(`\nresults: ${path.relative(ROOT, path.join(OUT_DIR, 'latest.json'))}`);

  if (!report.valid) return 1;
  writeResult(
    'run',
    { signed_balance_vs_baseline: ratio, signed_balance_rps: b.rps, signed_balance_baseline_rps: aRps },
    { A_rps: aRps, B_rps: b.rps, A_latency: report.A.latency, B_latency: b.latency },
  );
  if (OPTS.strict && !(report.targets.ratioMet && report.targets.p99Met)) return 3;
  return 0;
}

main()
  .catch((err: Error) => {
    if (!aborting) console.error(`bench failed: ${err.stack ?? err.message}`);
    return 1;
  })
  .then(async (code) => {
    await teardown();
    clearTimeout(watchdog);
    process.exit(code);
  });
