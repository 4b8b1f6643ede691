import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { ToolRepository } from '../../shared/tools/repository';
import { type ModelServer, startModelServer } from '../support/model-server';
import { startTestStack, type TestStack } from '../support/stack';
import { startScriptedVendor } from '../support/vendor';
import { addWorkflow, type GroupSetup, setupGroup, trigger, waitForRun } from '../support/webhook-runs';

const ROOT = path.resolve(__dirname, '../..');

/** A real worker process (`tsx workers/main.ts --queues …`) on this test file's database and queues. */
function startWorkerProcess(queues: string, env: NodeJS.ProcessEnv): ChildProcess {
  // Its own process group: tsx runs node as a child, and the kill must reach both.
  return spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['workers/main.ts', '--queues', queues], {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
    detached: true,
  });
}

/** Waits until `n` distinct worker identities poll the activity queue `queue` (a process that is still starting takes nothing). */
async function pollersOn(stack: TestStack, queue: string, n: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const res = await stack.temporal.client.workflowService.describeTaskQueue({
      namespace: stack.config.temporalNamespace,
      taskQueue: { name: stack.temporal.queue(queue) },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    if (new Set((res.pollers ?? []).map((p) => p.identity)).size >= n) return;
    if (Date.now() > deadline) throw new Error(`fewer than ${n} workers poll ${queue}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function kill(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

describe('webhook runs across worker processes', () => {
  let stack: TestStack;
  let model: ModelServer;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let g: GroupSetup;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    model = await startModelServer();
    vendor = await startScriptedVendor(() => ({ status: 200, body: { ok: true } }));
    // The API only; every worker in this file is a separate process.
    stack = await startTestStack({ env: { MODEL_API_URL: model.url } });
    g = await setupGroup(stack.db);
    await new LedgerStore(stack.db.models).grant({
      wallet: `ws:${g.workspaceId}`,
      credits: 100,
      creditType: 'admin_grant',
    });
    const tools = new ToolRepository(stack.db.models);
    await tools.createProduct({ slug: 'ping-tool', name: 'ping_tool', description: 'answers ok' });
    await tools.addAction('ping-tool', {
      slug: 'ping',
      credits: 3,
      x402_usd: null,
      parameters_schema: { type: 'object' },
      runner: { kind: 'http', url: `${vendor.url}/ping`, method: 'POST', timeout_ms: 10_000 },
    });
  }, 120_000);
  afterAll(async () => {
    for (const c of children) kill(c, 'SIGKILL');
    await stack.stop();
    await model.close();
    await vendor.stop();
  });

  it('two worker processes share the node load', async () => {
    const env = { MODEL_API_URL: model.url };
    children.push(startWorkerProcess('runs,node-model', env), startWorkerProcess('runs,node-model', env));
    try {
      await pollersOn(stack, 'node-model-v1', 2);
      const wf = await addWorkflow(stack.db, g, {
        name: 'ask',
        nodes: [{ id: 'ask', type: 'model', prompt: '{{prompt}}' }],
        edges: [],
      });
      model.behave({ delayMs: 300, status: 200 });
      const res = await Promise.all(
        Array.from({ length: 16 }, (_, i) => trigger(stack.server.mainUrl, g.token, wf, { prompt: `q${i}` })),
      );
      const runs = await Promise.all(
        res.map((r) => waitForRun(stack.server.mainUrl, r.body.data.run.run_id, g.token, 120_000)),
      );
      expect(runs.every((r) => r.status === 'completed')).toBe(true);
      const workers = new Set(runs.map((r) => r.run_metadata.nodes[0].worker));
      expect(workers.size).toBe(2);
    } finally {
      // Stopped whatever happened, so the next test's runs meet only its own workers.
      for (const c of children.splice(0)) kill(c, 'SIGKILL');
    }
  }, 240_000);

  it('a worker killed mid-run: the run completes on another worker, the paid node charged once', async () => {
    const env = { MODEL_API_URL: model.url };
    const first = startWorkerProcess('runs,node-model,node-tool', env);
    children.push(first);
    const wf = await addWorkflow(stack.db, g, {
      name: 'pay then ask',
      nodes: [
        { id: 'pay', type: 'tool', product: 'ping-tool', action: 'ping', parameters: {} },
        { id: 'ask', type: 'model', prompt: 'after {{nodes.pay.output.ok}}' },
      ],
      edges: [{ from: 'pay', to: 'ask' }],
    });
    model.behave({ delayMs: 20_000, status: 200 });
    const before = model.requests.length;
    const ledger = new LedgerStore(stack.db.models);
    const purchases = async () =>
      (await ledger.history(`ws:${g.workspaceId}`, 100)).transactions.filter((t) => t.transaction_type === 'purchase');
    const [balanceBefore, purchasesBefore] = [
      (await ledger.balance(`ws:${g.workspaceId}`)).balance,
      (await purchases()).length,
    ];
    const res = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'x' });
    const runId = res.body.data.run.run_id;
    await model.waitForRequests(before + 1, 120_000);
    kill(first, 'SIGKILL');
    model.behave({ delayMs: 0 });
    children.push(startWorkerProcess('runs,node-model,node-tool', env));
    const run = await waitForRun(stack.server.mainUrl, runId, g.token, 180_000);
    expect(run).toMatchObject({ status: 'completed', response_text: 'echo: after true' });
    expect(model.requests.length).toBeGreaterThanOrEqual(before + 2);
    expect(vendor.calls).toHaveLength(1);
    // One purchase for the tool (3 credits) and one for the model node (no usage reported: its
    // hold, ceil(("after true" 10 characters + 1024 max_tokens) / 1000) = 2 credits), though the model was called twice.
    expect((await purchases()).length - purchasesBefore).toBe(2);
    expect((await ledger.balance(`ws:${g.workspaceId}`)).balance).toBe(balanceBefore - 3 - 2);
  }, 300_000);
});
