/**
 * Tools benchmark (issue 8), `make bench` or `node_modules/.bin/tsx bench/tools.ts`:
 *
 * 1. invoke   (B) the real signed-credit slug invoke of a demo action (signature, request-id
 *             claim, product lookup, JSON Schema check, budget read, invocation record, hold,
 *             the vendor call over loopback, outcome record, capture) against
 *             (A) a baseline that does one insert plus the same loopback vendor call;
 *             in short slices A B B A × BENCH_TOOLS_ROUNDS (4), closed loop at
 *             BENCH_TOOLS_CONCURRENCY (8); then the store commands of 200 paid calls, counted.
 *             Target: B/A ≥ 0.5.
 * 2. catalog  GET /api/external/tools?page_size=100 p50 over 1k, 10k and 100k products
 *             (inserted directly in the store), first page, a deep page, a word-prefix search.
 *
 * Knobs: BENCH_TOOLS_CONCURRENCY, BENCH_TOOLS_DURATION_MS (8000), BENCH_TOOLS_ROUNDS (4), BENCH_TOOLS_SIZES (1000,10000,100000),
 * MONGODB_URI to reuse a store instead of a fresh FerretDB.
 */
import './silent-logs';
import http from 'node:http';
import path from 'node:path';
import express from 'express';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { signToolInvoke } from '../sdk/agent-client';
import { parseConfig } from '../shared/config';
import { LedgerStore } from '../shared/credits/ledger-store';
import { createDb } from '../shared/db';
import { ToolRepository } from '../shared/tools/repository';
import { startFerretDb } from '../scripts/services/ferretdb';
import { CACHE } from '../scripts/services/paths';
import { startServer } from '../api/server';
import { createTemporal } from '../temporal/connection';
import { startDemoVendor } from '../scripts/services/demo-vendor/server';
import { summarize } from './common';

const num = (name: string, fallback: number) => (Number(process.env[name]) > 0 ? Number(process.env[name]) : fallback);
const CONCURRENCY = num('BENCH_TOOLS_CONCURRENCY', 8);
const DURATION = num('BENCH_TOOLS_DURATION_MS', 8000);
const WARMUP = 1500;
const ROUNDS = num('BENCH_TOOLS_ROUNDS', 4);
const SIZES = (process.env.BENCH_TOOLS_SIZES ?? '1000,10000,100000').split(',').map(Number);
const log = (m: string) => process.stderr.write(`[bench:tools] ${m}\n`);

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
function post(url: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
function get(url: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    }).on('error', reject);
  });
}

/** Closed loop: `concurrency` callers, each sending the next body as soon as the last answer came. */
async function closedLoop(name: string, next: () => { url: string; body: string }, check: (r: { status: number; text: string }) => boolean, duration = DURATION, warmup = WARMUP) {
  const lat: number[] = [];
  let errors = 0;
  let measuring = false;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      const { url, body } = next();
      const t = process.hrtime.bigint();
      const r = await post(url, body);
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
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
  return { name, rps: lat.length / (elapsed / 1000), latency: summarize(lat), errors, lat, elapsed };
}

type LoopResult = Awaited<ReturnType<typeof closedLoop>>;

/** Several short runs of one scenario as one result: requests over the summed measured time. */
function merge(name: string, runs: LoopResult[]): LoopResult {
  const lat = runs.flatMap((r) => r.lat);
  const elapsed = runs.reduce((n, r) => n + r.elapsed, 0);
  return { name, rps: lat.length / (elapsed / 1000), latency: summarize(lat), errors: runs.reduce((n, r) => n + r.errors, 0), lat, elapsed };
}

async function main() {
  const ferret = process.env.MONGODB_URI ? undefined : await startFerretDb({ dataDir: path.join(CACHE, 'bench', `tools-${Date.now()}`) });
  const config = parseConfig({ ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', MONGODB_URI: process.env.MONGODB_URI ?? ferret!.uri, MONGODB_DB_NAME: `bench_tools_${Date.now()}`, X402_PAY_TO: '',
    // Every simulated agent opens its session from this one client address.
    AUTH_SESSION_LIMIT_PER_CLIENT: '100000', AUTH_SESSION_LIMIT_PER_WALLET: '100000' });
  const db = createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName });
  await db.ready(20000);
  const temporal = createTemporal(config);
  const vendor = await startDemoVendor({ rpcUrl: 'http://127.0.0.1:9', secret: 'bench-vendor-secret-0123456789' });
  const server = await startServer({ config, db, temporal }, { main: 0, api: 0 });

  // The baseline: one insert and the same vendor call, with the same JSON parsing.
  const baseline = express();
  baseline.use(express.json());
  const secret = 'Bearer bench-vendor-secret-0123456789';
  baseline.post('/bench/insert-vendor', async (req, res) => {
    await db.models.pings.collection.insertOne({ _id: `b${Date.now()}${Math.random()}`, at: new Date() } as never);
    const v = await fetch(`${vendor.url}/tools/text.stats`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: secret }, body: JSON.stringify({ action: 'stats', parameters: req.body.parameters, request_id: req.body.request_id }) });
    res.json({ success: true, response: ((await v.json()) as { result: unknown }).result });
  });
  const baseServer = await new Promise<http.Server>((r) => {
    const s = baseline.listen(0, '127.0.0.1', () => r(s));
  });
  const baseUrl = `http://127.0.0.1:${(baseServer.address() as { port: number }).port}/bench/insert-vendor`;

  try {
    const repo = new ToolRepository(db.models);
    const ledger = new LedgerStore(db.models);
    await repo.setSecret('demo-vendor', 'bench-vendor-secret-0123456789', config.tools.secretsKey);
    await repo.createProduct({ slug: 'text-tools', name: 'text_tools', description: 'Text statistics' });
    await repo.addAction('text-tools', {
      slug: 'stats',
      credits: 1,
      parameters_schema: { type: 'object', properties: { text: { type: 'string', maxLength: 10000 } }, required: ['text'], additionalProperties: false },
      runner: { kind: 'http', url: `${vendor.url}/tools/text.stats`, method: 'POST', timeout_ms: 5000, secret: 'demo-vendor' },
    });

    // Agents with sessions and credits; envelopes signed before anything is measured.
    const agents = await Promise.all(
      Array.from({ length: 32 }, async () => {
        const account = privateKeyToAccount(generatePrivateKey());
        const s = await post(`${server.mainUrl}/api/external/auth/session`, JSON.stringify({ wallet_address: account.address }));
        await ledger.grant({ wallet: account.address.toLowerCase(), credits: 1_000_000, creditType: 'admin_grant' });
        return { account, nonce: JSON.parse(s.text).data.session_nonce as string };
      }),
    );
    const parameters = { text: 'The quick brown fox jumps over the lazy dog. '.repeat(4) };
    const count = Math.max(4000, Math.ceil((DURATION + WARMUP + ROUNDS * 600 + 1000) / 1000) * 700);
    log(`signing ${count} envelopes`);
    const bodies: string[] = [];
    for (let i = 0; i < count; i++) {
      const a = agents[i % agents.length]!;
      const env = await signToolInvoke({ account: a.account, sessionNonce: a.nonce, productSlug: 'text-tools', actionSlug: 'stats', parameters, requestId: `bench-${i}` });
      bodies.push(JSON.stringify({ ...env, parameters }));
    }
    let used = 0;
    const invokeUrl = `${server.mainUrl}/api/external/tools/text-tools/actions/stats/invoke`;
    const baseBody = JSON.stringify({ parameters, request_id: 'x', wallet_address: '0x' + '0'.repeat(40), session_nonce: 'x'.repeat(40), signature: '0x' + '1'.repeat(130) });
    const okA = (r: { status: number; text: string }) => r.status === 200 && r.text.includes('"words":36');
    const runA = (d: number, w: number) => closedLoop('A', () => ({ url: baseUrl, body: baseBody }), okA, d, w);
    const runB = (d: number, w: number) =>
      closedLoop('B', () => {
        if (used >= bodies.length) throw new Error('ran out of envelopes');
        return { url: invokeUrl, body: bodies[used++]! };
      }, (r) => r.status === 200 && r.text.includes('"credits_charged":1'), d, w);
    // The machine is shared and its load drifts within seconds: A and B alternate in short slices,
    // A B B A per round (linear drift cancels); each side gets DURATION in total.
    const slice = DURATION / (2 * ROUNDS);
    const aRuns: LoopResult[] = [];
    const bRuns: LoopResult[] = [];
    await runA(500, WARMUP);
    await runB(500, WARMUP);
    for (let i = 0; i < ROUNDS; i++) {
      aRuns.push(await runA(slice, 300));
      bRuns.push(await runB(slice, 300));
      bRuns.push(await runB(slice, 300));
      aRuns.push(await runA(slice, 300));
    }
    const a = merge('A (insert + vendor)', aRuns);
    const b = merge('B (signed credit invoke)', bRuns);
    const slices = (runs: LoopResult[]) => runs.map((r) => r.rps.toFixed(0)).join(', ');

    // Store commands of paid calls, counted on the connection (warm caches).
    const ops = new Map<string, number>();
    const PROFILED = 200;
    let profiled = 0;
    for (let i = 0; i < 5; i++) await post(invokeUrl, bodies[used++]!);
    db.connection.set('debug', (collection: string, method: string) => ops.set(`${collection}.${method}`, (ops.get(`${collection}.${method}`) ?? 0) + 1));
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
    db.connection.set('debug', false);
    const row = (r: LoopResult) => `| ${r.name} | ${r.rps.toFixed(0)} | ${r.latency.p50Ms.toFixed(1)} / ${r.latency.p95Ms.toFixed(1)} / ${r.latency.p99Ms.toFixed(1)} | ${r.errors} |`;
    console.log(`\ntool invoke, concurrency ${CONCURRENCY}, ${DURATION} ms measured each, in slices A B B A × ${ROUNDS}\n`);
    console.log('| scenario | rps | p50 / p95 / p99 ms | errors |\n|---|---|---|---|');
    for (const r of [a, b]) console.log(row(r));
    console.log(`\nrps per slice, in order: A ${slices(aRuns)}; B ${slices(bRuns)}`);
    console.log(`\nB/A = ${(b.rps / a.rps).toFixed(2)} (target ≥ 0.5)\n`);
    const WRITES = /\.(insertOne|insertMany|updateOne|updateMany|deleteOne|deleteMany|findOneAndUpdate|replaceOne|bulkWrite)$/;
    const perCall = [...ops].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => ({ op: k, perCall: n / PROFILED, write: WRITES.test(k) }));
    console.log(`store commands per paid call (mean over ${PROFILED} calls at concurrency ${CONCURRENCY}):\n\n| operation | per call |\n|---|---|`);
    for (const o of perCall) console.log(`| ${o.op}${o.write ? ' (write)' : ''} | ${o.perCall.toFixed(2)} |`);
    const sum = (w: boolean) => perCall.filter((o) => o.write === w).reduce((n, o) => n + o.perCall, 0).toFixed(2);
    console.log(`\nwrites per call: ${sum(true)}, reads per call: ${sum(false)}\n`);

    // Catalog growth.
    console.log('| products | first page p50 ms | page 5 p50 ms | search "weath" p50 ms | search hits |\n|---|---|---|---|---|');
    let have = 0;
    const words = ['weather', 'finance', 'stocks', 'translate', 'images', 'search', 'maps', 'email'];
    for (const size of SIZES) {
      while (have < size) {
        const n = Math.min(2000, size - have);
        await repo.insertProducts(
          Array.from({ length: n }, (_, i) => {
            const k = have + i;
            return { slug: `gen-${k}`, name: `gen_${k}`, description: `${words[k % words.length]} tool number ${k}`, categories: [words[(k * 7) % words.length]!] };
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
      const list = `${server.mainUrl}/api/external/tools?page_size=100`;
      const first = await timeIt(list);
      const deep = await timeIt(`${list}&page=5`);
      const search = await timeIt(`${list}&query=weath`);
      const hits = JSON.parse(search.body).pagination.total_count;
      console.log(`| ${size} | ${first.p50.toFixed(1)} | ${deep.p50.toFixed(1)} | ${search.p50.toFixed(1)} | ${hits} |`);
    }
  } finally {
    await server.stop();
    await new Promise((r) => baseServer.close(r));
    await vendor.stop();
    await db.connection.dropDatabase().catch(() => undefined);
    await db.close();
    await temporal.close();
    await ferret?.stop();
    agent.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
