import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { callRecord } from '../../shared/tools/holds';
import { ToolRepository } from '../../shared/tools/repository';
import { vendorRequestId } from '../../shared/tools/vendor';
import { startTestStack, type TestStack } from '../support/stack';
import { startScriptedVendor } from '../support/vendor';
import { addWorkflow, type GroupSetup, setupGroup, trigger, waitForRun } from '../support/webhook-runs';

const ROOT = path.resolve(__dirname, '../..');

/** A real worker process on this test file's database and queues, in its own process group. */
function startWorkerProcess(queues: string): ChildProcess {
  return spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['workers/main.ts', '--queues', queues], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
    detached: true,
  });
}

function kill(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

describe('a worker killed during a paid tool call', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let g: GroupSetup;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    // The first call hangs (its worker is killed while it waits); any later one answers at once.
    vendor = await startScriptedVendor((call) =>
      vendor.calls.length === 1
        ? { status: 200, body: { late: true }, delayMs: 120_000 }
        : { status: 200, body: { ok: true, key: call.headers['idempotency-key'] } },
    );
    stack = await startTestStack();
    g = await setupGroup(stack.db);
    await new LedgerStore(stack.db.models).grant({
      wallet: `ws:${g.workspaceId}`,
      credits: 100,
      creditType: 'admin_grant',
    });
    const tools = new ToolRepository(stack.db.models);
    await tools.createProduct({ slug: 'slow-tool', name: 'slow_tool' });
    await tools.addAction('slow-tool', {
      slug: 'go',
      credits: 3,
      parameters_schema: { type: 'object' },
      runner: { kind: 'http', url: `${vendor.url}/go`, method: 'POST', timeout_ms: 150_000 },
    });
  }, 120_000);
  afterAll(async () => {
    for (const c of children) kill(c);
    await stack.stop();
    await vendor.stop();
  });

  it('the next attempt takes the call over on a worker that comes back: the run completes, one hold, one purchase', async () => {
    const first = startWorkerProcess('runs,node-tool');
    children.push(first);
    const wf = await addWorkflow(stack.db, g, {
      name: 'pay',
      nodes: [{ id: 'pay', type: 'tool', product: 'slow-tool', action: 'go', parameters: {} }],
      edges: [],
    });
    const res = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'x' });
    expect(res.status).toBeLessThan(300);
    const runId: string = res.body.data.run.run_id;
    for (let i = 0; i < 1200 && vendor.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(vendor.calls).toHaveLength(1);
    const ledger = new LedgerStore(stack.db.models);
    const account = `ws:${g.workspaceId}`;
    expect((await ledger.balance(account)).balance).toBe(97);
    kill(first);
    await new Promise((r) => first.once('exit', r));

    children.push(startWorkerProcess('runs,node-tool'));
    const run = await waitForRun(stack.server.mainUrl, runId, g.token, 180_000);
    expect(run.status).toBe('completed');
    expect(vendor.calls).toHaveLength(2);
    const keys = vendor.calls.map((c) => c.headers['idempotency-key']);
    expect(keys).toEqual(Array(2).fill(vendorRequestId(account, `run:${runId}:pay`)));
    expect(run.run_metadata.nodes[0]).toMatchObject({ credits_charged: 3 });

    const entries = await stack.db.models.creditTransactions.find({ user_id: account }).sort({ seq: 1 }).lean().exec();
    // The takeover is an entry of its own (no credits move): the hold names attempt 2 as its owner.
    expect(entries.map((e) => e.transaction_type)).toEqual(['grant', 'hold', 'takeover', 'purchase']);
    expect((await ledger.balance(account)).balance).toBe(97);
    expect(await callRecord(ledger, new ToolRepository(stack.db.models), account, `run:${runId}:pay`)).toMatchObject({
      status: 'succeeded',
      attempt: 2,
    });
  }, 300_000);
});
