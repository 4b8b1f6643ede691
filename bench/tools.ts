/**
 * Tools benchmark, `make bench` or `node_modules/.bin/tsx bench/tools.ts`:
 *
 * Processes: the API with the baseline route (bench/server.ts), the demo vendor
 * (scripts/demo-vendor.ts) and FerretDB each run in their own process; this one signs envelopes
 * and generates load.
 *
 * 1. invoke   (B) the real signed-credit slug invoke of a demo action (signature, product
 *             lookup, JSON Schema check, budget read, the hold (the call's claim and the
 *             request's replay guard), the vendor call over loopback, capture with the outcome)
 *             against (A) a baseline that does one insert plus the same loopback vendor call;
 *             and (C) the floor of a signed paid call: the signature (every signed request), the
 *             hold and capture ledger appends (every paid call) around the same vendor call, and
 *             nothing else (bench/server.ts, not a usable route);
 *             in short slices A B C C B A × BENCH_TOOLS_ROUNDS (4), closed loop at
 *             BENCH_TOOLS_CONCURRENCY (16: both sides at capacity, see bench/README.md); then the
 *             store commands of 200 paid calls, counted.
 *             Target: B/A ≥ 0.5.
 * 2. catalog  GET /api/external/tools?page_size=100 p50 over 1k, 10k and 100k products
 *             (inserted directly in the store), first page, a deep page, a word-prefix search.
 *
 * BENCH_TOOLS_PROFILE=1 also CPU-profiles the API process over 4 s of each of A, B and C and prints summaries,
 * and saves FerretDB's Go profile of the same windows (`go tool pprof -top <file>`).
 *
 * Knobs: BENCH_TOOLS_CONCURRENCY, BENCH_TOOLS_DURATION_MS (8000), BENCH_TOOLS_ROUNDS (4), BENCH_TOOLS_SIZES (1000,10000,100000),
 * MONGODB_URI to reuse a store instead of a fresh FerretDB.
 */
import './silent-logs';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startFerretDb } from '../scripts/services/ferretdb';
import { CACHE, ROOT } from '../scripts/services/paths';
import { freePort, onFreePort, portOpen, startProcess } from '../scripts/services/process';
import { signToolInvoke } from '../sdk/agent-client';
import { createDb } from '../shared/composition/store';
import { LedgerStore } from '../shared/credits/ledger-store';
import { parseConfig } from '../shared/platform/config/index';
import { ToolRepository } from '../shared/tools/repository';
import { startBenchServer } from './children';
import { envNumber, summarize } from './common';
import { request } from './http';
import { cpuMs, cpuMsByName } from './proc-cpu';
import { formatProfile, summarizeProfile } from './profile-summary';
import { writeResult } from './result-file';

// 16 callers: at 8, B's API thread still waited on its store round trips 13-19 % of the time while
// A's was saturated, so the ratio mixed B's latency into a throughput figure (bench/README.md).
const CONCURRENCY = envNumber('BENCH_TOOLS_CONCURRENCY', 16);
const DURATION = envNumber('BENCH_TOOLS_DURATION_MS', 8000);
const WARMUP = 1500;
const ROUNDS = envNumber('BENCH_TOOLS_ROUNDS', 4);
const PROFILE = process.env.BENCH_TOOLS_PROFILE === '1';
const SIZES = (process.env.BENCH_TOOLS_SIZES ?? '1000,10000,100000').split(',').map(Number);
const log = (m: string) => process.stderr.write(`[bench:tools] ${m}\n`);

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const post = (url: string, body: string) => request(agent, url, 'POST', body);
const get = (url: string) => request(agent, url, 'GET');

/** Closed loop: `concurrency` callers, each sending the next body as soon as the last answer came. */
async function closedLoop(
  name: string,
  next: () => { url: string; body: string },
  check: (r: { status: number; text: string }) => boolean,
  duration = DURATION,
  warmup = WARMUP,
) {
  const lat: number[] = [];
  let completed = 0;
  let errors = 0;
  let measuring = false;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      const { url, body } = next();
      const t = process.hrtime.bigint();
      const r = await post(url, body);
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      completed++;
      if (!check(r)) {
        errors++;
        if (errors < 3) log(`${name} error ${r.status}: ${r.text.slice(0, 200)}`);
      } else if (measuring) lat.push(ms);
    }
  };
  const runners = Array.from({ length: CONCURRENCY }, loop);
  await new Promise((r) => setTimeout(r, warmup));
  measuring = true;
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, duration));
  measuring = false;
  const elapsed = Date.now() - t0;
  stop = true;
  await Promise.all(runners);
  return { name, rps: lat.length / (elapsed / 1000), latency: summarize(lat), errors, lat, elapsed, completed };
}

type LoopResult = Awaited<ReturnType<typeof closedLoop>>;

/** Several short runs of one scenario as one result: requests over the summed measured time. */
function merge(name: string, runs: LoopResult[]): LoopResult {
  const lat = runs.flatMap((r) => r.lat);
  const elapsed = runs.reduce((n, r) => n + r.elapsed, 0);
  return {
    name,
    rps: lat.length / (elapsed / 1000),
    latency: summarize(lat),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    lat,
    elapsed,
    completed: runs.reduce((n, r) => n + r.completed, 0),
  };
}

async function main() {
  const storeDebug = PROFILE && !process.env.MONGODB_URI ? `127.0.0.1:${await freePort()}` : undefined;
  const ferret = process.env.MONGODB_URI ? undefined : await startFerretDb({ debugAddr: storeDebug });
  const vendorSecret = 'bench-vendor-secret-0123456789';
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    MONGODB_URI: process.env.MONGODB_URI ?? ferret!.uri,
    MONGODB_DB_NAME: `bench_tools_${Date.now()}`,
    X402_PAY_TO: '',
    // Every simulated agent opens its session from this one client address.
    AUTH_SESSION_LIMIT_PER_CLIENT: '100000',
    AUTH_SESSION_LIMIT_PER_WALLET: '100000',
  };
  const config = parseConfig(env);
  const db = createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName });
  await db.ready(20000);
  const children: Array<{ stop(): Promise<void> }> = [];
  try {
    let vendorUrl = '';
    const vendor = await onFreePort(undefined, (port) => {
      vendorUrl = `http://127.0.0.1:${port}`;
      return startProcess({
        name: 'demo vendor',
        command: process.execPath,
        args: ['--import', 'tsx', 'scripts/demo-vendor.ts'],
        cwd: ROOT,
        env: {
          DEMO_VENDOR_PORT: String(port),
          DEMO_VENDOR_SECRET: vendorSecret,
          DEMO_VENDOR_RPC_URL: 'http://127.0.0.1:9',
        },
        ready: () => portOpen(port),
        timeoutMs: 30_000,
      });
    });
    children.push(vendor);
    const started = await startBenchServer({
      ...env,
      ...(PROFILE ? { BENCH_STAGES: '1', BENCH_PROFILE_DIR: path.join(CACHE, 'bench') } : {}),
      BENCH_VENDOR_URL: `${vendorUrl}/tools/text.stats`,
      BENCH_VENDOR_SECRET: vendorSecret,
    });
    children.push(started.child);
    const serverUrl = `http://127.0.0.1:${started.port}`;
    const baseUrl = `${serverUrl}/bench/insert-vendor`;
    const pids = { api: started.child.proc.pid, vendor: vendor.child.pid, store: ferret?.pid, load: process.pid };
    const cpuNow = () => ({
      ...(Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid)])) as Record<
        keyof typeof pids,
        number
      >),
      // The API's JavaScript thread: what one process can serve is bounded by it, not by the process total.
      apiMain: cpuMs(pids.api, pids.api),
      postgres: cpuMsByName().get('postgres') ?? 0,
    });

    const repo = new ToolRepository(db.models);
    const ledger = new LedgerStore(db.models);
    await repo.setSecret('demo-vendor', vendorSecret, config.tools.secretsKey);
    await repo.createProduct({ slug: 'text-tools', name: 'text_tools', description: 'Text statistics' });
    await repo.addAction('text-tools', {
      slug: 'stats',
      credits: 1,
      parameters_schema: {
        type: 'object',
        properties: { text: { type: 'string', maxLength: 10000 } },
        required: ['text'],
        additionalProperties: false,
      },
      runner: {
        kind: 'http',
        url: `${vendorUrl}/tools/text.stats`,
        method: 'POST',
        timeout_ms: 5000,
        secret: 'demo-vendor',
      },
    });

    // Agents with sessions and credits; envelopes signed before anything is measured.
    const agents = await Promise.all(
      Array.from({ length: 32 }, async () => {
        const account = privateKeyToAccount(generatePrivateKey());
        const s = await post(
          `${serverUrl}/api/external/auth/session`,
          JSON.stringify({ wallet_address: account.address }),
        );
        await ledger.grant({ wallet: account.address.toLowerCase(), credits: 1_000_000, creditType: 'admin_grant' });
        return { account, nonce: JSON.parse(s.text).data.session_nonce as string };
      }),
    );
    const parameters = { text: 'The quick brown fox jumps over the lazy dog. '.repeat(4) };
    const count = Math.max(
      4000,
      Math.ceil((DURATION + WARMUP + ROUNDS * 600 + 1000 + (PROFILE ? 4000 : 0)) / 1000) * 1200,
    );
    log(`signing ${2 * count} envelopes`);
    const sign = (prefix: string) =>
      Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const a = agents[i % agents.length]!;
          const env = await signToolInvoke({
            account: a.account,
            sessionNonce: a.nonce,
            productSlug: 'text-tools',
            actionSlug: 'stats',
            parameters,
            requestId: `${prefix}-${i}`,
          });
          return JSON.stringify({ ...env, parameters });
        }),
      );
    const bodies = await sign('bench');
    const floorBodies = await sign('floor');
    let used = 0;
    let floorUsed = 0;
    const floorUrl = `${serverUrl}/bench/signed-hold-vendor-capture`;
    const invokeUrl = `${serverUrl}/api/external/tools/text-tools/actions/stats/invoke`;
    const baseBody = JSON.stringify({
      parameters,
      request_id: 'x',
      wallet_address: '0x' + '0'.repeat(40),
      session_nonce: 'x'.repeat(40),
      signature: '0x' + '1'.repeat(130),
    });
    const okA = (r: { status: number; text: string }) => r.status === 200 && r.text.includes('"words":36');
    // CPU each process spent per completed call, per side, summed over the side's slices.
    const zero = () => ({ calls: 0, api: 0, apiMain: 0, vendor: 0, store: 0, postgres: 0, load: 0 });
    const cpu = { A: zero(), B: zero(), C: zero() };
    const metered = async (side: 'A' | 'B' | 'C', run: () => Promise<LoopResult>, count: boolean) => {
      const before = cpuNow();
      const r = await run();
      if (count) {
        const after = cpuNow();
        const acc = cpu[side];
        acc.calls += r.completed;
        for (const k of ['api', 'apiMain', 'vendor', 'store', 'postgres', 'load'] as const)
          acc[k] += after[k] - before[k];
      }
      return r;
    };
    const runA = (d: number, w: number, count = true) =>
      metered('A', () => closedLoop('A', () => ({ url: baseUrl, body: baseBody }), okA, d, w), count);
    const runB = (d: number, w: number, count = true) =>
      metered(
        'B',
        () =>
          closedLoop(
            'B',
            () => {
              if (used >= bodies.length) throw new Error('ran out of envelopes');
              return { url: invokeUrl, body: bodies[used++]! };
            },
            (r) => r.status === 200 && r.text.includes('"credits_charged":1'),
            d,
            w,
          ),
        count,
      );
    const runC = (d: number, w: number, count = true) =>
      metered(
        'C',
        () =>
          closedLoop(
            'C',
            () => {
              if (floorUsed >= floorBodies.length) throw new Error('ran out of envelopes');
              return { url: floorUrl, body: floorBodies[floorUsed++]! };
            },
            (r) => r.status === 200 && r.text.includes('"credits_charged":1') && r.text.includes('"words":36'),
            d,
            w,
          ),
        count,
      );
    // The machine is shared and its load drifts within seconds: the sides alternate in short
    // slices, A B C C B A per round (linear drift cancels); each side gets DURATION in total.
    const slice = DURATION / (2 * ROUNDS);
    const aRuns: LoopResult[] = [];
    const bRuns: LoopResult[] = [];
    const cRuns: LoopResult[] = [];
    await runA(500, WARMUP, false);
    await runB(500, WARMUP, false);
    await runC(500, WARMUP, false);
    for (let i = 0; i < ROUNDS; i++) {
      aRuns.push(await runA(slice, 300));
      bRuns.push(await runB(slice, 300));
      cRuns.push(await runC(slice, 300));
      cRuns.push(await runC(slice, 300));
      bRuns.push(await runB(slice, 300));
      aRuns.push(await runA(slice, 300));
    }
    const a = merge('A (insert + vendor)', aRuns);
    const b = merge('B (signed credit invoke)', bRuns);
    const c = merge('C (floor: signed, hold + vendor + capture)', cRuns);
    const slices = (runs: LoopResult[]) => runs.map((r) => r.rps.toFixed(0)).join(', ');

    if (PROFILE) {
      for (const [side, run] of [
        ['A', runA],
        ['B', runB],
        ['C', runC],
      ] as const) {
        await post(`${serverUrl}/bench/profile/start`, '{}');
        // The store's own profile over the same window (Go pprof, read with `go tool pprof -top <file>`).
        const storeProfile = storeDebug
          ? fetch(`http://${storeDebug}/debug/pprof/profile?seconds=4`).then(async (r) =>
              Buffer.from(await r.arrayBuffer()),
            )
          : undefined;
        const profiled = await run(4000, 0, false);
        log(`profile ${side}: ${profiled.completed} calls`);
        const { file } = JSON.parse((await post(`${serverUrl}/bench/profile/stop?name=tools-${side}`, '{}')).text) as {
          file: string;
        };
        console.log(formatProfile(summarizeProfile(file)));
        if (storeProfile) {
          const storeFile = path.join(CACHE, 'bench', `tools-${side}-store.pprof`);
          fs.writeFileSync(storeFile, await storeProfile);
          console.log(`store (FerretDB) CPU profile over the same window: ${storeFile}\n`);
        }
      }
    }

    // Store commands of paid calls, counted on the API's connection (warm caches).
    const PROFILED = 200;
    let profiled = 0;
    for (let i = 0; i < 5; i++) await post(invokeUrl, bodies[used++]!);
    await post(`${serverUrl}/bench/commands/start`, '{}');
    // At the benchmark's concurrency, so grouped writes show as the commands they really cost.
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (used < bodies.length && profiled < PROFILED) {
          profiled++;
          const r = await post(invokeUrl, bodies[used++]!);
          if (r.status !== 200) throw new Error(`profiled call failed: ${r.status} ${r.text.slice(0, 200)}`);
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 200)); // writes not awaited by the call land too
    const ops = new Map(
      Object.entries(JSON.parse((await post(`${serverUrl}/bench/commands/stop`, '{}')).text) as Record<string, number>),
    );
    const row = (r: LoopResult) =>
      `| ${r.name} | ${r.rps.toFixed(0)} | ${r.latency.p50Ms.toFixed(1)} / ${r.latency.p95Ms.toFixed(1)} / ${r.latency.p99Ms.toFixed(1)} | ${r.errors} |`;
    console.log(
      `\ntool invoke, concurrency ${CONCURRENCY}, ${DURATION} ms measured each, in slices A B C C B A × ${ROUNDS}\n`,
    );
    console.log('| scenario | rps | p50 / p95 / p99 ms | errors |\n|---|---|---|---|');
    for (const r of [a, b, c]) console.log(row(r));
    console.log(`\nrps per slice, in order: A ${slices(aRuns)}; B ${slices(bRuns)}; C ${slices(cRuns)}`);
    console.log(
      `\nB/A = ${(b.rps / a.rps).toFixed(2)} (target ≥ 0.5); C/A = ${(c.rps / a.rps).toFixed(2)} (the floor: a signed paid call that writes only its hold (the replay guard) and capture)\n`,
    );
    if (a.errors + b.errors > 0) throw new Error(`tool invoke: ${a.errors} baseline and ${b.errors} invoke errors`);
    writeResult(
      'tools',
      { signed_invoke_vs_baseline: b.rps / a.rps, signed_invoke_rps: b.rps, signed_invoke_baseline_rps: a.rps },
      { A_rps: a.rps, B_rps: b.rps, C_rps: c.rps, A_latency: a.latency, B_latency: b.latency, C_latency: c.latency },
    );
    const per = (side: 'A' | 'B' | 'C', k: Exclude<keyof ReturnType<typeof zero>, 'calls'>) =>
      (cpu[side][k] / cpu[side].calls).toFixed(2);
    console.log(
      'CPU ms per completed call, per process (from /proc over the measured slices; "API main" is its JavaScript thread, "store" FerretDB):\n\n| side | API | API main | vendor | store | PostgreSQL | load generator |\n|---|---|---|---|---|---|---|',
    );
    for (const side of ['A', 'B', 'C'] as const)
      console.log(
        `| ${side} | ${per(side, 'api')} | ${per(side, 'apiMain')} | ${per(side, 'vendor')} | ${per(side, 'store')} | ${per(side, 'postgres')} | ${per(side, 'load')} |`,
      );
    console.log('');
    const WRITES =
      /\.(insertOne|insertMany|updateOne|updateMany|deleteOne|deleteMany|findOneAndUpdate|replaceOne|bulkWrite)$/;
    const perCall = [...ops]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => ({ op: k, perCall: n / PROFILED, write: WRITES.test(k) }));
    console.log(
      `store commands per paid call (mean over ${PROFILED} calls at concurrency ${CONCURRENCY}):\n\n| operation | per call |\n|---|---|`,
    );
    for (const o of perCall) console.log(`| ${o.op}${o.write ? ' (write)' : ''} | ${o.perCall.toFixed(2)} |`);
    const sum = (w: boolean) =>
      perCall
        .filter((o) => o.write === w)
        .reduce((n, o) => n + o.perCall, 0)
        .toFixed(2);
    console.log(`\nwrites per call: ${sum(true)}, reads per call: ${sum(false)}\n`);

    // Catalog growth.
    console.log(
      '| products | first page p50 ms | page 5 p50 ms | search "weath" p50 ms | search hits |\n|---|---|---|---|---|',
    );
    let have = 0;
    const words = ['weather', 'finance', 'stocks', 'translate', 'images', 'search', 'maps', 'email'];
    for (const size of SIZES) {
      while (have < size) {
        const n = Math.min(2000, size - have);
        await repo.insertProducts(
          Array.from({ length: n }, (_, i) => {
            const k = have + i;
            return {
              slug: `gen-${k}`,
              name: `gen_${k}`,
              description: `${words[k % words.length]} tool number ${k}`,
              categories: [words[(k * 7) % words.length]!],
            };
          }),
        );
        have += n;
      }
      const timeIt = async (u: string, rounds = 15) => {
        const lat: number[] = [];
        let body = '';
        for (let i = 0; i < rounds; i++) {
          const t = process.hrtime.bigint();
          const r = await get(u);
          lat.push(Number(process.hrtime.bigint() - t) / 1e6);
          if (r.status !== 200) throw new Error(`${u}: ${r.status} ${r.text.slice(0, 200)}`);
          body = r.text;
        }
        return { p50: summarize(lat).p50Ms, body };
      };
      const list = `${serverUrl}/api/external/tools?page_size=100`;
      const first = await timeIt(list);
      const deep = await timeIt(`${list}&page=5`);
      const search = await timeIt(`${list}&query=weath`);
      const hits = JSON.parse(search.body).pagination.total_count;
      console.log(
        `| ${size} | ${first.p50.toFixed(1)} | ${deep.p50.toFixed(1)} | ${search.p50.toFixed(1)} | ${hits} |`,
      );
    }
  } finally {
    for (const c of children.reverse()) await c.stop();
    await db.connection.dropDatabase().catch(() => undefined);
    await db.close();
    await ferret?.stop();
    agent.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
