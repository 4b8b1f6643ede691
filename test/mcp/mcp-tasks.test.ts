import type { Client } from '@modelcontextprotocol/client';
import { AgentCommerceError, McpTasks } from '../../sdk/src/index';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { BudgetChargeRepository } from '../../shared/workspaces/budget-charges';
import { addWordsAction, connectMcp, mcpRpc as rpc, TASKS_EXTENSION as TASKS } from '../support/mcp-rpc';
import { runDoc } from '../support/run-doc';
import { startTestStack, type TestStack } from '../support/stack';
import { startScriptedVendor, type VendorBehaviour } from '../support/vendor';
import { waitUntil } from '../support/wait';
import { addWorkflow, type GroupSetup, setupGroup, templateWorkflow } from '../support/webhook-runs';

describe('MCP tasks (SEP-2663) and runs as resources, against the real stack', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let ledger: LedgerStore;
  let url: string;
  const clients: Client[] = [];
  const countWords: VendorBehaviour = () => ({ status: 200, body: { words: 1 } });

  async function connect(token: string): Promise<Client> {
    const client = await connectMcp(url, token, 'mcp-tasks-test');
    clients.push(client);
    return client;
  }

  async function publishedGreeter(g: GroupSetup, name: string): Promise<string> {
    const wf = await addWorkflow(stack.db, g, templateWorkflow(name));
    await new WorkflowRepository(stack.db.models).publish(wf, '1.0.0');
    return wf;
  }

  async function pollTask(token: string, taskId: string, timeoutMs = 30_000): Promise<any> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const { result, error } = await rpc(url, token, 'tasks/get', { taskId });
      if (error) throw new Error(JSON.stringify(error));
      if (['completed', 'failed', 'cancelled'].includes(result.status)) return result;
      if (Date.now() > end) throw new Error(`task still ${result.status}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    url = `${stack.server.mainUrl}/mcp`;
    ledger = new LedgerStore(stack.db.models);
    vendor = await startScriptedVendor(countWords);
    await addWordsAction(stack.db, vendor.url);
  }, 180_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await vendor?.stop();
    await stack?.stop();
  });

  it('advertises the extension; a workflow tool called by a declaring client answers a flat CreateTaskResult, and tasks/get inlines the result', async () => {
    const g = await setupGroup(stack.db, { daily: 1000 });
    const wf = await publishedGreeter(g, 'task greeter');
    // The official client lists the tools and sees the extension in the server's capabilities.
    const client = await connect(g.token);
    expect(client.getServerCapabilities()).toMatchObject({ extensions: { [TASKS]: {} } });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain(`workflow__${wf}`);

    const created = await rpc(url, g.token, 'tools/call', {
      name: `workflow__${wf}`,
      arguments: { prompt: 'tasks', request_id: 'task-1' },
    });
    expect(created.result).toMatchObject({
      resultType: 'task',
      taskId: expect.stringMatching(/^run_/),
      status: 'working',
      createdAt: expect.any(String),
      lastUpdatedAt: expect.any(String),
      ttlMs: expect.any(Number),
      pollIntervalMs: expect.any(Number),
    });
    for (const key of ['task', 'result', 'error', 'inputRequests']) expect(created.result).not.toHaveProperty(key);
    const taskId = created.result.taskId as string;

    const done = await pollTask(g.token, taskId);
    expect(done).toMatchObject({
      taskId,
      status: 'completed',
      resultType: 'complete',
      result: {
        content: [{ type: 'text', text: 'Hello, tasks!' }],
        structuredContent: { run_id: taskId, status: 'completed', response_text: 'Hello, tasks!' },
      },
    });
    // The task is the webhook run: the same request id answers the same task, not a second run.
    const again = await rpc(url, g.token, 'tools/call', {
      name: `workflow__${wf}`,
      arguments: { prompt: 'tasks', request_id: 'task-1' },
    });
    expect(again.result).toMatchObject({ resultType: 'task', taskId, status: 'completed' });
    expect(await stack.db.models.webhookRuns.countDocuments({ group_id: g.groupId })).toBe(1);

    // A client that does not declare the extension keeps the synchronous answer, and may not use tasks/*.
    const sync = await client.callTool({ name: `workflow__${wf}`, arguments: { prompt: 'sync' } });
    expect(sync).toMatchObject({ structuredContent: { status: 'completed', response_text: 'Hello, sync!' } });
    expect(sync).not.toHaveProperty('taskId');
    const gated = await rpc(url, g.token, 'tasks/get', { taskId }, { tasks: false });
    expect(gated.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
  }, 120_000);

  it('a tool-level failure is a completed task with result.isError; cancel on a terminal task is the same empty ack', async () => {
    const g = await setupGroup(stack.db, { daily: 1000 });
    // A tool node whose product the workspace has no credits for: the run fails as the tool's own answer.
    const wf = await addWorkflow(stack.db, g, {
      name: 'unfunded words',
      nodes: [{ id: 'count', type: 'tool', product: 'words', action: 'count', parameters: { text: '{{prompt}}' } }],
      edges: [],
    });
    await new WorkflowRepository(stack.db.models).publish(wf, '1.0.0');
    const created = await rpc(url, g.token, 'tools/call', { name: `workflow__${wf}`, arguments: { prompt: 'a b' } });
    expect(created.result).toMatchObject({ resultType: 'task' });
    const done = await pollTask(g.token, created.result.taskId);
    expect(done).toMatchObject({ status: 'completed', result: { isError: true } });
    expect(done).not.toHaveProperty('error');
    const ack = await rpc(url, g.token, 'tasks/cancel', { taskId: created.result.taskId });
    expect(ack.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
  }, 120_000);

  it('tasks/cancel mid-run cancels the run through the REST use case: it ends cancelled and its hold is released', async () => {
    const g = await setupGroup(stack.db, { daily: null, total: null });
    const account = `ws:${g.workspaceId}`;
    await ledger.grant({ wallet: account, credits: 50, creditType: 'admin_grant' });
    const wf = await addWorkflow(stack.db, g, {
      name: 'slow words',
      nodes: [{ id: 'count', type: 'tool', product: 'words', action: 'count', parameters: { text: '{{prompt}}' } }],
      edges: [],
    });
    await new WorkflowRepository(stack.db.models).publish(wf, '1.0.0');
    vendor.set(() => ({ status: 200, body: { words: 1 }, delayMs: 30_000 }));
    try {
      const before = vendor.calls.length;
      const created = await rpc(url, g.token, 'tools/call', { name: `workflow__${wf}`, arguments: { prompt: 'slow' } });
      const taskId = created.result.taskId as string;
      for (let i = 0; vendor.calls.length === before && i < 300; i++) await new Promise((r) => setTimeout(r, 100));
      expect((await rpc(url, g.token, 'tasks/get', { taskId })).result).toMatchObject({ status: 'working' });
      expect((await ledger.balance(account)).balance).toBe(45);

      const ack = await rpc(url, g.token, 'tasks/cancel', { taskId });
      expect(ack.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
      for (const key of ['taskId', 'status', 'result', 'error']) expect(ack.result).not.toHaveProperty(key);
      expect(await pollTask(g.token, taskId)).toMatchObject({ taskId, status: 'cancelled' });
      const run = await stack.db.models.webhookRuns.findById(taskId).lean();
      expect(run).toMatchObject({ status: 'cancelled' });
      expect(await stack.db.models.webhookRunCancels.findById(taskId).lean()).toMatchObject({
        cancel_reason: 'cancelled with MCP tasks/cancel',
      });
      // The hold is released: nothing captured, the balance whole again.
      expect((await ledger.balance(account)).balance).toBe(50);
      const { transactions } = await ledger.history(account, 50);
      expect(transactions.filter((t) => t.transaction_type === 'purchase')).toHaveLength(0);
      expect(await new BudgetChargeRepository(stack.db.models).spent(g.budgetId)).toMatchObject({ total: 0 });
      // Idempotent: a second cancel is the same ack.
      expect((await rpc(url, g.token, 'tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
    } finally {
      vendor.set(countWords);
    }
  }, 120_000);

  it('a task is visible only to its group: a foreign or unknown task id is -32602', async () => {
    const g = await setupGroup(stack.db, { daily: 1000 });
    const other = await setupGroup(stack.db, { daily: 1000 });
    const wf = await publishedGreeter(g, 'private greeter');
    const created = await rpc(url, g.token, 'tools/call', { name: `workflow__${wf}`, arguments: { prompt: 'mine' } });
    const taskId = created.result.taskId as string;
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const foreign = await rpc(url, other.token, method, { taskId, inputResponses: {} });
      expect({ method, error: foreign.error }).toMatchObject({ method, error: { code: -32602 } });
    }
    expect((await rpc(url, g.token, 'tasks/get', { taskId: 'no-such-task' })).error).toMatchObject({
      code: -32602,
      data: { code: 'task_not_found' },
    });
    expect((await rpc(url, undefined, 'tasks/get', { taskId })).error).toMatchObject({ code: -32602 });
    // Still the owner's, and still running or done for it.
    expect((await pollTask(g.token, taskId)).status).toBe('completed');
  }, 120_000);

  it("reads the group's runs as resources: a template, a paged list with cache hints, the run's JSON, -32602 with the uri for another's", async () => {
    const g = await setupGroup(stack.db, { daily: 1000 });
    const other = await setupGroup(stack.db, { daily: 1000 });
    const wf = await publishedGreeter(g, 'resource greeter');
    const client = await connect(g.token);
    const runIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await client.callTool({ name: `workflow__${wf}`, arguments: { prompt: `r${i}` } });
      runIds.push((r.structuredContent as { run_id: string }).run_id);
    }
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: 'agent-commerce://runs/{run_id}', mimeType: 'application/json' }),
      expect.objectContaining({
        uriTemplate: 'agent-commerce://receipts/{transaction_id}',
        mimeType: 'application/json',
      }),
    ]);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.name).sort()).toEqual([...runIds].sort());
    // Raw: every list carries its cache hints.
    const raw = await rpc(url, g.token, 'resources/list', {});
    expect(raw.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    const tpl = await rpc(url, g.token, 'resources/templates/list', {});
    expect(tpl.result).toMatchObject({ ttlMs: expect.any(Number), cacheScope: 'public' });

    const read = await client.readResource({ uri: `agent-commerce://runs/${runIds[0]}` });
    const run = JSON.parse((read.contents[0] as { text: string }).text);
    expect(run).toMatchObject({ run_id: runIds[0], workflow_id: wf, status: 'completed', response_text: 'Hello, r0!' });

    const foreignUri = `agent-commerce://runs/${runIds[0]}`;
    const foreign = await rpc(url, other.token, 'resources/read', { uri: foreignUri });
    expect(foreign.error).toMatchObject({ code: -32602, data: { uri: foreignUri } });
    const unknown = await rpc(url, g.token, 'resources/read', { uri: 'agent-commerce://nothing' });
    expect(unknown.error).toMatchObject({ code: -32602, data: { uri: 'agent-commerce://nothing' } });
    expect((await rpc(url, other.token, 'resources/list', {})).result.resources).toEqual([]);
    // Prompts are not served: not declared, and the method is not found.
    expect(client.getServerCapabilities()?.prompts).toBeUndefined();
    expect((await rpc(url, g.token, 'prompts/list', {})).error).toMatchObject({ code: -32601 });
  }, 120_000);

  it('pages resources/list newest first with an opaque cursor', async () => {
    const g = await setupGroup(stack.db, { daily: 1000 });
    const wf = await publishedGreeter(g, 'many');
    const base = Date.now() - 1_000_000;
    // Stored runs, as many as a page and a half (the list reads the store, not the engine).
    const docs = Array.from({ length: 75 }, (_, i) =>
      runDoc({
        _id: `run_${(i + 1).toString(16).padStart(24, '0')}`,
        workflow_id: wf,
        group_id: g.groupId,
        budget_id: g.budgetId,
        workspace_id: g.workspaceId,
        status: 'completed',
        response_text: 'ok',
        created_at: new Date(base + i * 1000),
      }),
    );
    await stack.db.models.webhookRuns.insertMany(docs);
    const first = await rpc(url, g.token, 'resources/list', {});
    expect(first.result.resources).toHaveLength(50);
    expect(first.result.resources[0].name).toBe(docs[74]._id);
    expect(first.result.nextCursor).toEqual(expect.any(String));
    const second = await rpc(url, g.token, 'resources/list', { cursor: first.result.nextCursor });
    expect(second.result.resources).toHaveLength(25);
    expect(second.result.nextCursor).toBeUndefined();
    expect(second.result.resources[24].name).toBe(docs[0]._id);
    expect((await rpc(url, g.token, 'resources/list', { cursor: 'nope' })).error).toMatchObject({
      code: -32602,
      data: { code: 'invalid_cursor' },
    });
  }, 120_000);

  it('the SDK helper drives a workflow as a task end to end: run and await, start and cancel', async () => {
    const g = await setupGroup(stack.db, { daily: null, total: null });
    const wf = await publishedGreeter(g, 'sdk greeter');
    const mcp = new McpTasks({ baseUrl: stack.server.mainUrl, token: g.token });
    const seen: string[] = [];
    const done = await mcp.runWorkflow(wf, { prompt: 'SDK' }, { onStatus: (t) => seen.push(t.status) });
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'Hello, SDK!' }] } });
    expect(seen[seen.length - 1]).toBe('completed');

    await ledger.grant({ wallet: `ws:${g.workspaceId}`, credits: 20, creditType: 'admin_grant' });
    const slow = await addWorkflow(stack.db, g, {
      name: 'sdk slow words',
      nodes: [{ id: 'count', type: 'tool', product: 'words', action: 'count', parameters: { text: '{{prompt}}' } }],
      edges: [],
    });
    await new WorkflowRepository(stack.db.models).publish(slow, '1.0.0');
    vendor.set(() => ({ status: 200, body: { words: 1 }, delayMs: 30_000 }));
    try {
      const task = await mcp.startWorkflow(slow, { prompt: 'slow', request_id: 'sdk-slow' });
      expect(task.status).toBe('working');
      // Followed by notification: its state now, then its end once cancelled; another group's id left out.
      const pushed: string[] = [];
      const stranger = await setupGroup(stack.db, { daily: null, total: null });
      const listening = mcp.listenTasks([task.taskId], { onTask: (t) => pushed.push(t.status) });
      const theirs = new McpTasks({ baseUrl: stack.server.mainUrl, token: stranger.token });
      expect(await theirs.listenTasks([task.taskId])).toEqual([]);
      await waitUntil('the listen to push the task', async () => pushed.length > 0, 20_000);
      await mcp.cancelTask(task.taskId);
      const [ended] = await listening;
      expect(ended).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
      expect(pushed).toEqual(['working', 'cancelled']);
      expect(await mcp.awaitTask(task.taskId, { timeoutMs: 20_000 })).toMatchObject({ status: 'cancelled' });
      await mcp.cancelTask(task.taskId);
    } finally {
      vendor.set(countWords);
    }
    await expect(mcp.getTask('run_000000000000000000000000')).rejects.toMatchObject({ rpcCode: -32602 });
    await expect(mcp.startWorkflow(wf, { prompt: '' })).rejects.toBeInstanceOf(AgentCommerceError);
  }, 120_000);
});
