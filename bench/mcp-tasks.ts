/**
 * A run's result in the agent's hands over MCP tasks against REST, on the same one-node
 * (template) workflow, one run at a time, interleaved (REST, MCP, REST, MCP, ...):
 *   REST: POST /api/agent-webhooks/{id}/trigger, then GET the run with wait_seconds (one held request);
 *   MCP:  tools/call of workflow__{id} declaring the tasks extension (CreateTaskResult at once),
 *         then tasks/get until it is completed with its result inlined, BENCH_POLL_MS between
 *         answers (the server holds a working task's tasks/get up to its pollIntervalMs, 1 s,
 *         and answers the moment the run ends).
 * Reports both p50s and their ratio (MCP / REST), target ≤ 1.1.
 *
 * Then a paid catalog call with credits, one at a time, interleaved, on the same action (an
 * in-process HTTP vendor answering at once, 1 credit):
 *   REST: the signed credit invoke, POST /api/external/tools/{product}/actions/{action}/invoke
 *         (envelopes signed before the clock starts: signing is the client's, not the server's);
 *   MCP:  tools/call of {product}__{action} with the wallet's act_ bearer and an idempotency key.
 * Reports both p50s and their ratio (MCP / REST), target ≤ 1.2.
 *
 * Knobs: BENCH_LATENCY_RUNS (40), BENCH_POLL_MS (25). Workers run in this process (the runs and template-node queues).
 * BENCH_MCP_PROFILE=1 then runs BENCH_PROFILE_CALLS (200) more of each path one at a time, counting
 * the store commands mongoose sends per call (this process's: the workers' too on the run paths)
 * and CPU per call, then CPU-profiling this process over a second loop of each (.cache/bench/mcp-*.cpuprofile,
 * summarised).
 * Run: nice node_modules/.bin/tsx bench/mcp-tasks.ts (starts FerretDB and Temporal unless
 * MONGODB_URI / TEMPORAL_ADDRESS name running ones).
 */
import './silent-logs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type RunningServer, startServer } from '../api/http/server';
import { CACHE } from '../scripts/services/paths';
import { signToolInvoke } from '../sdk/agent-client';
import { LedgerStore } from '../shared/credits/ledger-store';
import { AccessTokenService } from '../shared/identity/access-tokens';
import { parseConfig } from '../shared/platform/config/index';
import { ToolRepository } from '../shared/tools/repository';
import { WorkflowRepository } from '../shared/workflows/repository';
import { createTemporal, ensureSearchAttributes } from '../temporal/connection';
import { selectQueues } from '../workers/queues';
import { runWorkers } from '../workers/run-workers';
import { envNumber, summarize } from './common';
import { startCpuProfile } from './cpu-profiler';
import { greeterGroup } from './greeter-group';
import { formatProfile, summarizeProfile } from './profile-summary';
import { writeResult } from './result-file';
import { benchDb, storeAndTemporal } from './services';

const RUNS = envNumber('BENCH_LATENCY_RUNS', 40);
const POLL_MS = envNumber('BENCH_POLL_MS', 25);
const PROFILE = process.env.BENCH_MCP_PROFILE === '1';
const PROFILE_CALLS = envNumber('BENCH_PROFILE_CALLS', 200);
const TASKS = 'io.modelcontextprotocol/tasks';
const log = (m: string) => process.stderr.write(`[bench:mcp-tasks] ${m}\n`);
const stops: Array<() => Promise<unknown>> = [];

async function main(): Promise<void> {
  const services = await storeAndTemporal(stops);
  const config = parseConfig({
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    MONGODB_URI: services.mongodbUri,
    TEMPORAL_ADDRESS: services.temporalAddress,
    MONGODB_DB_NAME: `bench_mcp_tasks_${Date.now()}`,
    TEMPORAL_TASK_QUEUE_PREFIX: `benchmcptasks${Date.now()}-`,
    CREDENTIALS_ENCRYPTION_KEY: '0'.repeat(64),
  });
  const db = await benchDb(config, stops);
  const temporal = createTemporal(config);
  stops.unshift(() => temporal.close());
  await ensureSearchAttributes(temporal);
  const workers = await runWorkers(
    { config, db, temporal, identity: `bench-mcp-${process.pid}` },
    selectQueues(['runs', 'node-template']),
    config.temporalAddress,
  );
  stops.unshift(() => workers.shutdown());
  const server: RunningServer = await startServer({ config, db, temporal }, { main: 0, api: 0 });
  stops.unshift(() => server.stop());
  const { token, workflowId } = await greeterGroup(db, config.credentialsKey);
  // Only published workflows are MCP tools.
  await new WorkflowRepository(db.models).publish(workflowId, '1.0.0');
  const auth = { authorization: `Bearer ${token}` };

  /**
   * BENCH_MCP_PROFILE: `calls` more of one path, one at a time, with the store commands mongoose
   * sends per call and, with `cpu`, a CPU profile of this process over the loop.
   */
  async function profiled(name: string, calls: number, call: (i: number) => Promise<number>, cpu: boolean) {
    const commands = new Map<string, number>();
    db.connection.set('debug', (collection: string, method: string) =>
      commands.set(`${collection}.${method}`, (commands.get(`${collection}.${method}`) ?? 0) + 1),
    );
    const cpuBefore = process.cpuUsage();
    const ms: number[] = [];
    for (let i = 0; i < calls; i++) ms.push(await call(i));
    const used = process.cpuUsage(cpuBefore);
    db.connection.set('debug', false);
    // A second loop under the profiler: its sampling would inflate the first one's figures.
    const profiler = cpu ? await startCpuProfile() : undefined;
    for (let i = 0; profiler && i < calls; i++) await call(calls + i);
    const file = await profiler?.stop(path.join(CACHE, 'bench', `mcp-${name}.cpuprofile`));
    const total = [...commands.values()].reduce((a, n) => a + n, 0);
    log(
      `${name}: p50 ${summarize(ms).p50Ms.toFixed(1)} ms, this process's CPU ${((used.user + used.system) / 1000 / calls).toFixed(2)} ms per call; store commands per call ${(total / calls).toFixed(2)}: ${[
        ...commands,
      ]
        .sort((x, y) => y[1] - x[1])
        .map(([k, n]) => `${k} ${(n / calls).toFixed(2)}`)
        .join(', ')}`,
    );
    if (file) log(formatProfile(summarizeProfile(file)));
  }

  /** Where each run's time went: the trigger's (or tools/call's) answer, and how many tasks/get it took. */
  const phases = { restTrigger: [] as number[], mcpCall: [] as number[], mcpPolls: [] as number[] };

  async function rest(i: number): Promise<number> {
    const t0 = performance.now();
    const trig = await fetch(`${server.mainUrl}/api/agent-webhooks/${workflowId}/trigger`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: `rest ${i}` }),
    });
    const runId = ((await trig.json()) as { data: { run: { run_id: string } } }).data.run.run_id;
    phases.restTrigger.push(performance.now() - t0);
    const got = await fetch(`${server.mainUrl}/api/agent-webhooks/runs/${runId}?wait_seconds=30`, { headers: auth });
    const run = ((await got.json()) as { data: { run: { status: string } } }).data.run;
    if (run.status !== 'completed') throw new Error(`REST run ${runId} ended ${run.status}`);
    return performance.now() - t0;
  }

  async function rpc(
    method: string,
    params: Record<string, unknown>,
    bearer: Record<string, string> = auth,
  ): Promise<Record<string, unknown>> {
    const res = await fetch(`${server.mainUrl}/mcp`, {
      method: 'POST',
      headers: {
        ...bearer,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        'mcp-name': String(params.name ?? params.taskId),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
          },
        },
      }),
    });
    const text = await res.text();
    const body = JSON.parse(text.startsWith('{') ? text : text.split('data: ')[1]!) as {
      result?: Record<string, unknown>;
      error?: unknown;
    };
    if (!body.result) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
    return body.result;
  }

  async function mcp(i: number): Promise<number> {
    const t0 = performance.now();
    const created = await rpc('tools/call', { name: `workflow__${workflowId}`, arguments: { prompt: `mcp ${i}` } });
    const taskId = created.taskId as string;
    phases.mcpCall.push(performance.now() - t0);
    for (let polls = 1; ; polls++) {
      const task = await rpc('tasks/get', { taskId });
      if (task.status === 'completed' && task.result) {
        phases.mcpPolls.push(polls);
        return performance.now() - t0;
      }
      if (task.status !== 'working') throw new Error(`task ${taskId} ended ${String(task.status)}`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  // Warm both paths (first workflow start, first tool list of the catalog index).
  for (let i = 0; i < 3; i++) await Promise.all([rest(-1), mcp(-1)]);
  const restMs: number[] = [];
  const mcpMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    restMs.push(await rest(i));
    mcpMs.push(await mcp(i));
  }
  const r = summarize(restMs);
  const m = summarize(mcpMs);
  const ratio = m.p50Ms / r.p50Ms;
  // The warm-up's runs are in the phases too: only the measured ones are summarised.
  const measured = (xs: number[]) => xs.slice(-RUNS);
  log(`REST trigger + long-poll: p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms (${r.count} runs)`);
  log(`MCP task call + tasks/get every ${POLL_MS} ms: p50 ${m.p50Ms.toFixed(1)} ms, p99 ${m.p99Ms.toFixed(1)} ms`);
  log(`ratio (MCP / REST p50): ${ratio.toFixed(2)}`);
  log(
    `answers at p50: REST trigger ${summarize(measured(phases.restTrigger)).p50Ms.toFixed(1)} ms, MCP tools/call ${summarize(measured(phases.mcpCall)).p50Ms.toFixed(1)} ms; tasks/get per run ${summarize(measured(phases.mcpPolls)).meanMs.toFixed(2)} (mean)`,
  );
  if (PROFILE) {
    const runs = Math.min(PROFILE_CALLS, 50);
    await profiled('rest-run', runs, (i) => rest(1000 + i), true);
    await profiled('mcp-task', runs, (i) => mcp(1000 + i), true);
    // One message's fixed cost on each protocol: reads of one ended run (the same run-waits read behind both).
    const ended = await fetch(`${server.mainUrl}/api/agent-webhooks/${workflowId}/trigger`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'ended' }),
    });
    const endedId = ((await ended.json()) as { data: { run: { run_id: string } } }).data.run.run_id;
    await fetch(`${server.mainUrl}/api/agent-webhooks/runs/${endedId}?wait_seconds=30`, { headers: auth });
    const reads = { rest: [] as number[], mcp: [] as number[] };
    // This process's CPU per read (client and server): steadier than latency on a shared machine.
    const readCpu = { rest: 0, mcp: 0 };
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1000;
    };
    for (let i = 0; i < PROFILE_CALLS; i++) {
      let c0 = process.cpuUsage();
      let t0 = performance.now();
      await (await fetch(`${server.mainUrl}/api/agent-webhooks/runs/${endedId}`, { headers: auth })).text();
      reads.rest.push(performance.now() - t0);
      readCpu.rest += cpuMs(c0);
      c0 = process.cpuUsage();
      t0 = performance.now();
      await rpc('tasks/get', { taskId: endedId });
      reads.mcp.push(performance.now() - t0);
      readCpu.mcp += cpuMs(c0);
    }
    log(
      `one read of an ended run at p50: REST GET ${summarize(reads.rest).p50Ms.toFixed(1)} ms (CPU ${(readCpu.rest / PROFILE_CALLS).toFixed(2)} ms), MCP tasks/get ${summarize(reads.mcp).p50Ms.toFixed(1)} ms (CPU ${(readCpu.mcp / PROFILE_CALLS).toFixed(2)} ms)`,
    );
  }

  // A paid catalog call with credits: the signed REST invoke against the MCP tools/call.
  const vendor = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"words":9}');
    });
  });
  await new Promise<void>((resolve) => vendor.listen(0, '127.0.0.1', resolve));
  stops.unshift(() => new Promise((resolve) => vendor.close(resolve)));
  const tools = new ToolRepository(db.models);
  await tools.createProduct({ slug: 'words', name: 'words', description: 'Counts words' });
  await tools.addAction('words', {
    slug: 'count',
    credits: 1,
    x402_usd: null,
    parameters_schema: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false },
    runner: {
      kind: 'http',
      url: `http://127.0.0.1:${(vendor.address() as AddressInfo).port}/count`,
      method: 'POST',
      timeout_ms: 5000,
    },
  });
  const account = privateKeyToAccount(generatePrivateKey());
  const wallet = account.address.toLowerCase();
  await new LedgerStore(db.models).grant({ wallet, credits: 1_000_000, creditType: 'admin_grant' });
  const session = await fetch(`${server.mainUrl}/api/external/auth/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wallet_address: account.address }),
  });
  const nonce = ((await session.json()) as { data: { session_nonce: string } }).data.session_nonce;
  const act = await new AccessTokenService(db.models).issue({ wallet, createdBy: 'operator' as never });
  const walletAuth = { authorization: `Bearer ${act.access_token}` };
  const parameters = { text: 'the quick brown fox' };
  const invokeUrl = `${server.mainUrl}/api/external/tools/words/actions/count/invoke`;
  const WARM = 3;
  const envelopes = await Promise.all(
    Array.from({ length: RUNS + WARM + (PROFILE ? 2 * PROFILE_CALLS : 0) }, async (_, i) =>
      JSON.stringify({
        ...(await signToolInvoke({
          account,
          sessionNonce: nonce,
          productSlug: 'words',
          actionSlug: 'count',
          parameters,
          requestId: `bench-rest-${i}`,
        })),
        parameters,
      }),
    ),
  );

  async function signedInvoke(i: number): Promise<number> {
    const t0 = performance.now();
    const res = await fetch(invokeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: envelopes[i],
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`signed invoke answered ${res.status}: ${text.slice(0, 300)}`);
    return performance.now() - t0;
  }

  async function mcpCredits(i: number): Promise<number> {
    const t0 = performance.now();
    const result = await rpc(
      'tools/call',
      { name: 'words__count', arguments: parameters, _meta: { 'agent-commerce/idempotency-key': `bench-mcp-${i}` } },
      walletAuth,
    );
    if (result.isError) throw new Error(`MCP credits call failed: ${JSON.stringify(result).slice(0, 300)}`);
    return performance.now() - t0;
  }

  for (let i = 0; i < WARM; i++) {
    await signedInvoke(RUNS + i);
    await mcpCredits(RUNS + i);
  }
  const invokeMs: number[] = [];
  const creditsMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    invokeMs.push(await signedInvoke(i));
    creditsMs.push(await mcpCredits(i));
  }
  const ri = summarize(invokeMs);
  const mc = summarize(creditsMs);
  const creditsRatio = mc.p50Ms / ri.p50Ms;
  log(`signed REST invoke: p50 ${ri.p50Ms.toFixed(1)} ms, p99 ${ri.p99Ms.toFixed(1)} ms (${ri.count} calls)`);
  log(`MCP credits tools/call: p50 ${mc.p50Ms.toFixed(1)} ms, p99 ${mc.p99Ms.toFixed(1)} ms`);
  log(`ratio (MCP / signed REST p50): ${creditsRatio.toFixed(2)} (target <= 1.2)`);
  if (PROFILE) {
    await profiled('signed-invoke', PROFILE_CALLS, (i) => signedInvoke(RUNS + WARM + i), true);
    await profiled('mcp-credits', PROFILE_CALLS, (i) => mcpCredits(RUNS + WARM + i), true);
  }

  writeResult(
    'mcp-tasks',
    {
      rest_p50_ms: r.p50Ms,
      mcp_task_p50_ms: m.p50Ms,
      mcp_task_over_rest_p50: ratio,
      signed_invoke_p50_ms: ri.p50Ms,
      mcp_credits_p50_ms: mc.p50Ms,
      mcp_credits_over_signed_invoke_p50: creditsRatio,
    },
    { rest: r, mcp: m, pollMs: POLL_MS, signedInvoke: ri, mcpCredits: mc },
  );
}

main()
  .catch((err) => {
    process.stderr.write(`[bench:mcp-tasks] failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const stop of stops) await stop().catch(() => undefined);
    process.exit();
  });
