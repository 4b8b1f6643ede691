/**
 * A run's result in the agent's hands over MCP tasks against REST, on the same one-node
 * (template) workflow, one run at a time, interleaved (REST, MCP, REST, MCP, ...):
 *   REST: POST /api/agent-webhooks/{id}/trigger, then GET the run with wait_seconds (one held request);
 *   MCP:  tools/call of workflow__{id} declaring the tasks extension (CreateTaskResult at once),
 *         then tasks/get until it is completed with its result inlined, BENCH_POLL_MS between
 *         answers (the server holds a working task's tasks/get up to its pollIntervalMs, 1 s,
 *         and answers the moment the run ends).
 * Reports both p50s and their ratio (MCP / REST).
 *
 * Knobs: BENCH_LATENCY_RUNS (40), BENCH_POLL_MS (25). Workers run in this process (the runs and template-node queues).
 * Run: nice node_modules/.bin/tsx bench/mcp-tasks.ts (starts FerretDB and Temporal unless
 * MONGODB_URI / TEMPORAL_ADDRESS name running ones).
 */
import './silent-logs';
import { type RunningServer, startServer } from '../api/http/server';
import { parseConfig } from '../shared/platform/config/index';
import { WorkflowRepository } from '../shared/workflows/repository';
import { createTemporal, ensureSearchAttributes } from '../temporal/connection';
import { selectQueues } from '../workers/queues';
import { runWorkers } from '../workers/run-workers';
import { envNumber, summarize } from './common';
import { greeterGroup } from './greeter-group';
import { writeResult } from './result-file';
import { benchDb, storeAndTemporal } from './services';

const RUNS = envNumber('BENCH_LATENCY_RUNS', 40);
const POLL_MS = envNumber('BENCH_POLL_MS', 25);
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

  async function rest(i: number): Promise<number> {
    const t0 = performance.now();
    const trig = await fetch(`${server.mainUrl}/api/agent-webhooks/${workflowId}/trigger`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: `rest ${i}` }),
    });
    const runId = ((await trig.json()) as { data: { run: { run_id: string } } }).data.run.run_id;
    const got = await fetch(`${server.mainUrl}/api/agent-webhooks/runs/${runId}?wait_seconds=30`, { headers: auth });
    const run = ((await got.json()) as { data: { run: { status: string } } }).data.run;
    if (run.status !== 'completed') throw new Error(`REST run ${runId} ended ${run.status}`);
    return performance.now() - t0;
  }

  async function rpc(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const res = await fetch(`${server.mainUrl}/mcp`, {
      method: 'POST',
      headers: {
        ...auth,
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
    for (;;) {
      const task = await rpc('tasks/get', { taskId });
      if (task.status === 'completed' && task.result) return performance.now() - t0;
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
  log(`REST trigger + long-poll: p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms (${r.count} runs)`);
  log(`MCP task call + tasks/get every ${POLL_MS} ms: p50 ${m.p50Ms.toFixed(1)} ms, p99 ${m.p99Ms.toFixed(1)} ms`);
  log(`ratio (MCP / REST p50): ${ratio.toFixed(2)}`);
  writeResult(
    'mcp-tasks',
    { rest_p50_ms: r.p50Ms, mcp_task_p50_ms: m.p50Ms, mcp_task_over_rest_p50: ratio },
    { rest: r, mcp: m, pollMs: POLL_MS },
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
