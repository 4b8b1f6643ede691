import { LedgerStore } from '../../shared/credits/ledger-store';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { TestAgent } from '../support/agent';
import { until } from '../support/jobs';
import { type ModelServer, startModelServer } from '../support/model-server';
import { startTestStack, type TestStack } from '../support/stack';
import { addWorkflow, setupGroup, trigger, waitForRun } from '../support/webhook-runs';

jest.setTimeout(120_000);

/** Issue 18 item 2: model nodes are priced, on the real stack with a real OpenAI-compatible HTTP endpoint. */
describe('model nodes are paid (sessions and runs, real store, Temporal, HTTP model endpoint)', () => {
  let stack: TestStack;
  let model: ModelServer;
  let ledger: LedgerStore;
  let askFlow: string;

  beforeAll(async () => {
    model = await startModelServer();
    // 1 credit per token keeps the sums readable.
    stack = await startTestStack({
      workers: true,
      env: { MODEL_API_URL: model.url, MODEL_CREDITS_PER_1K_TOKENS: '1000' },
    });
    ledger = new LedgerStore(stack.db.models);
    askFlow = (
      await new WorkflowRepository(stack.db.models).create({
        name: 'Ask',
        nodes: [{ id: 'ask', type: 'model', prompt: 'Say hi', max_tokens: 50 }],
        edges: [],
        status: 'published',
      })
    )._id;
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
    await model?.close();
  });

  async function agent(): Promise<TestAgent> {
    const a = new TestAgent(stack.server.mainUrl);
    await a.startSession();
    return a;
  }
  const start = (a: TestAgent, id: string) => a.call(`/api/external/workflows/${id}/start`, 'workflow_start', {}, id);
  const fetchS = (a: TestAgent, id: string) => a.call(`/api/external/workflows/${id}/fetch`, 'workflow_fetch', {}, id);

  it('a wallet without credits cannot start a session that reaches a model node: 402 insufficient_credits, no session, the endpoint never called', async () => {
    const a = await agent();
    const before = model.requests.length;
    const r = await start(a, askFlow);
    expect([r.status, r.body.error_code ?? r.body.error]).toEqual([402, 'insufficient_credits']);
    expect(await stack.db.models.workflowSessions.countDocuments({ wallet: a.wallet })).toBe(0);
    await new Promise((res) => setTimeout(res, 1_000));
    expect(model.requests.length).toBe(before);
  });

  it("a funded wallet's session pays its model node from the wallet: the endpoint's usage, once", async () => {
    const a = await agent();
    await ledger.grant({ wallet: a.wallet, credits: 500, creditType: 'admin_grant' });
    model.behave({ usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } });
    const s = await start(a, askFlow);
    expect(s.status).toBe(200);
    const done = await until(
      () => fetchS(a, askFlow),
      (r) => !['pending', 'running'].includes(r.body.data?.run.status),
    );
    expect(done.body.data.run).toMatchObject({
      status: 'completed',
      response_text: 'echo: Say hi',
      credits_charged: 12,
    });
    expect(model.requests.at(-1)!.body.max_tokens).toBe(50);
    expect((await ledger.balance(a.wallet)).balance).toBe(488);
    model.behave({ usage: undefined });
  });

  it("a webhook run's model node is paid from the workspace: without the credits its model node needs the trigger is refused 402 insufficient_credits, no run, the endpoint not called", async () => {
    const g = await setupGroup(stack.db);
    const wf = await addWorkflow(stack.db, g, {
      name: 'ask',
      nodes: [{ id: 'ask', type: 'model', prompt: '{{prompt}}' }],
      edges: [],
    });
    const before = model.requests.length;
    const res = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'free?' });
    expect([res.status, res.body.error]).toEqual([402, 'insufficient_credits']);
    expect(res.body.message).toContain('at least 1024 credits');
    expect(await stack.db.models.webhookRuns.countDocuments({ group_id: g.groupId })).toBe(0);
    expect(model.requests.length).toBe(before);

    await ledger.grant({ wallet: `ws:${g.workspaceId}`, credits: 2_000, creditType: 'admin_grant' });
    model.behave({ usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 } });
    const paid = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'paid' });
    expect(await waitForRun(stack.server.mainUrl, paid.body.data.run.run_id, g.token)).toMatchObject({
      status: 'completed',
      response_text: 'echo: paid',
    });
    expect((await ledger.balance(`ws:${g.workspaceId}`)).balance).toBe(1_995);
    model.behave({ usage: undefined });
  });

  it('publish refuses a model node whose max_tokens is over the cap (4096)', async () => {
    const g = await setupGroup(stack.db);
    await expect(
      addWorkflow(stack.db, g, {
        name: 'greedy',
        nodes: [{ id: 'ask', type: 'model', prompt: 'x', max_tokens: 100_000 }],
        edges: [],
      }),
    ).rejects.toMatchObject({
      code: 'invalid_workflow',
    });
  });
});
