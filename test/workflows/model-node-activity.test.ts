import { MockActivityEnvironment } from '@temporalio/testing';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { WorkflowSessionRepository } from '../../shared/workflow-sessions/repository';
import { createModelNodeActivities, modelHoldId } from '../../shared/workflows/nodes/model/activity';
import { BudgetChargeRepository } from '../../shared/workspaces/budget-charges';
import { workspaceAccount } from '../../shared/workspaces/types';
import { openTestDb } from '../support/db';
import { type ModelServer, startModelServer } from '../support/model-server';
import { setupGroup } from '../support/webhook-runs';

jest.setTimeout(60_000);

/** The model activity outside a worker (Context from MockActivityEnvironment), on the real store and a real HTTP model endpoint. */
describe('model node activity in a MockActivityEnvironment', () => {
  let model: ModelServer;
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let ledger: LedgerStore;
  beforeAll(async () => {
    model = await startModelServer();
    db = await openTestDb();
    ledger = new LedgerStore(db.models);
  });
  afterAll(async () => {
    await model.close();
    await db.drop();
  });
  afterEach(() => model.behave({ delayMs: 0, status: 200, usage: undefined }));

  let runs = 0;
  /** A funded workspace's call; 1 credit per token (MODEL_CREDITS_PER_1K_TOKENS=1000) keeps the sums readable. */
  async function callFor(credits: number, node: Record<string, unknown> = {}) {
    const g = await setupGroup(db);
    if (credits > 0)
      await ledger.grant({ wallet: workspaceAccount(g.workspaceId), credits, creditType: 'admin_grant' });
    const call = {
      runId: `run_${String(++runs).padStart(24, '0')}`,
      node: { id: 'ask', type: 'model' as const, prompt: 'Hi {{prompt}}', ...node },
      prompt: 'Ada',
      outputs: {},
      metadata: {},
      workspaceId: g.workspaceId,
      budgetId: g.budgetId,
    };
    return { call, account: workspaceAccount(g.workspaceId) };
  }
  const acts = () =>
    createModelNodeActivities({
      models: db.models,
      ledger,
      sessions: new WorkflowSessionRepository(db.models),
      identity: 'mock',
      model: { url: model.url, name: 'm', timeoutMs: 30_000, creditsPer1kTokens: 1000 },
    });
  const balance = async (account: string) => (await ledger.balance(account)).balance;

  it('answers with the completion and heartbeats while waiting', async () => {
    const { call } = await callFor(5_000);
    model.behave({ delayMs: 1500, status: 200 });
    const env = new MockActivityEnvironment();
    let beats = 0;
    env.on('heartbeat', () => beats++);
    expect(await env.run(acts().runModelNode, call)).toMatchObject({
      output: 'echo: Hi Ada',
      model: 'test-model-1',
      worker: 'mock',
    });
    expect(beats).toBeGreaterThanOrEqual(2);
  });

  it('a model node is paid: holds prompt + max_tokens before the call, charges the endpoint usage after, once', async () => {
    const { call, account } = await callFor(5_000);
    model.behave({ delayMs: 800, usage: { prompt_tokens: 12, completion_tokens: 28, total_tokens: 40 } });
    const before = model.requests.length;
    const running = new MockActivityEnvironment().run(acts().runModelNode, call);
    await model.waitForRequests(before + 1);
    // "Hi Ada" (6 characters) + the default max_tokens 1024, held while the endpoint works.
    expect(await balance(account)).toBe(5_000 - 1_030);
    expect(model.requests[before]!.body.max_tokens).toBe(1024);
    const out = await running;
    expect(out).toMatchObject({ output: 'echo: Hi Ada', credits_charged: 40, transaction_id: expect.any(String) });
    expect(await balance(account)).toBe(4_960);
    const purchases = (await ledger.history(account, 20)).transactions.filter(
      (t: { transaction_type: string }) => t.transaction_type === 'purchase',
    );
    expect(purchases.map((t: { amount_credits: number }) => t.amount_credits)).toEqual([-40]);
  });

  it('holds a prompt of rare characters by its UTF-8 bytes (what a byte-level tokenizer may bill), not its UTF-16 length', async () => {
    const { call, account } = await callFor(20_000, { prompt: '\u{1D518}'.repeat(1000) });
    model.behave({ delayMs: 800, usage: { prompt_tokens: 4000, completion_tokens: 10, total_tokens: 4010 } });
    const before = model.requests.length;
    const running = new MockActivityEnvironment().run(acts().runModelNode, call);
    await model.waitForRequests(before + 1);
    // 1000 characters of 4 UTF-8 bytes each (2000 UTF-16 units) + the default max_tokens 1024.
    expect(await balance(account)).toBe(20_000 - 4_000 - 1_024);
    expect(await running).toMatchObject({ credits_charged: 4_010 });
    expect(await balance(account)).toBe(20_000 - 4_010);
  });

  it('usage above the hold is charged too: the hold captured, the excess a debit of its own, once; the budget counts it all', async () => {
    const { call, account } = await callFor(5_000);
    // "Hi Ada" + max_tokens 1024 holds 1030; the endpoint reports 1500 tokens (a chat template's own tokens, say).
    model.behave({ usage: { prompt_tokens: 476, completion_tokens: 1024, total_tokens: 1500 } });
    const out = await new MockActivityEnvironment().run(acts().runModelNode, call);
    expect(out).toMatchObject({
      credits_charged: 1_500,
      transaction_id: expect.any(String),
      excess_transaction_id: expect.any(String),
    });
    expect(await balance(account)).toBe(3_500);
    const purchases = async () =>
      (await ledger.history(account, 20)).transactions
        .filter((t: { transaction_type: string }) => t.transaction_type === 'purchase')
        .map((t: { amount_credits: number }) => t.amount_credits)
        .sort((a: number, b: number) => a - b);
    expect(await purchases()).toEqual([-1_030, -470]);
    expect((await new BudgetChargeRepository(db.models).spent(call.budgetId)).total).toBe(1_500);
    // A retry of the attempt (the endpoint answers again): the capture and the excess replay, nothing more is charged.
    expect(await new MockActivityEnvironment().run(acts().runModelNode, call)).toMatchObject({
      credits_charged: 1_500,
    });
    expect(await balance(account)).toBe(3_500);
    expect(await purchases()).toEqual([-1_030, -470]);
  });

  it('usage above the hold that the balance cannot cover is charged down to zero; the node still answers', async () => {
    const { call, account } = await callFor(1_100);
    model.behave({ usage: { prompt_tokens: 476, completion_tokens: 1024, total_tokens: 1500 } });
    expect(await new MockActivityEnvironment().run(acts().runModelNode, call)).toMatchObject({
      output: 'echo: Hi Ada',
      credits_charged: 1_100,
    });
    expect(await balance(account)).toBe(0);
    expect((await new BudgetChargeRepository(db.models).spent(call.budgetId)).total).toBe(1_100);
  });

  it('a usage report far above the hold is charged at most four times the hold', async () => {
    const { call, account } = await callFor(10_000);
    model.behave({ usage: { prompt_tokens: 1_000_000, completion_tokens: 10, total_tokens: 1_000_010 } });
    expect(await new MockActivityEnvironment().run(acts().runModelNode, call)).toMatchObject({
      credits_charged: 4_120,
    });
    expect(await balance(account)).toBe(10_000 - 4_120);
  });

  it('a call still running when the healer releases its hold is still charged its usage, once (a direct spend)', async () => {
    const { call, account } = await callFor(5_000);
    model.behave({ delayMs: 800, usage: { prompt_tokens: 12, completion_tokens: 28, total_tokens: 40 } });
    const before = model.requests.length;
    const running = new MockActivityEnvironment().run(acts().runModelNode, call);
    await model.waitForRequests(before + 1);
    // What the stale-hold healer does to a hold it judges abandoned.
    expect(await ledger.release({ account, holdId: modelHoldId(call.runId, 'ask'), reason: 'stale' })).toEqual({
      released: true,
    });
    expect(await balance(account)).toBe(5_000);
    expect(await running).toMatchObject({ credits_charged: 40, transaction_id: expect.any(String) });
    expect(await balance(account)).toBe(4_960);
    // A retry of the attempt after the spend replays it: charged once.
    expect(await new MockActivityEnvironment().run(acts().runModelNode, call)).toMatchObject({ credits_charged: 40 });
    expect(await balance(account)).toBe(4_960);
  });

  it('an account without the credits to hold: insufficient_credits, the endpoint is never called', async () => {
    const { call, account } = await callFor(100);
    const before = model.requests.length;
    await expect(new MockActivityEnvironment().run(acts().runModelNode, call)).rejects.toMatchObject({
      type: 'insufficient_credits',
      nonRetryable: true,
    });
    expect(model.requests.length).toBe(before);
    expect(await balance(account)).toBe(100);
  });

  it('a final endpoint failure releases the hold: nothing charged', async () => {
    const { call, account } = await callFor(5_000);
    model.behave({ status: 400 });
    await expect(new MockActivityEnvironment().run(acts().runModelNode, call)).rejects.toMatchObject({
      type: 'model_error',
    });
    expect(await balance(account)).toBe(5_000);
  });

  it('max_tokens over the cap is refused at run (a graph stored before the cap), before anything is held or called', async () => {
    const { call, account } = await callFor(1_000_000, { max_tokens: 1_000_000 });
    const before = model.requests.length;
    await expect(new MockActivityEnvironment().run(acts().runModelNode, call)).rejects.toMatchObject({
      type: 'invalid_node',
      nonRetryable: true,
    });
    expect(model.requests.length).toBe(before);
    expect(await balance(account)).toBe(1_000_000);
  });

  it('aborts the HTTP call when the activity is cancelled, and gives the hold back', async () => {
    const { call, account } = await callFor(5_000);
    model.behave({ delayMs: 30_000 });
    const env = new MockActivityEnvironment();
    const before = model.requests.length;
    const running = env.run(acts().runModelNode, call);
    await model.waitForRequests(before + 1);
    env.cancel();
    await expect(running).rejects.toMatchObject({ name: 'CancelledFailure' });
    expect(await model.requests[before]!.aborted).toBe(true);
    expect(await balance(account)).toBe(5_000);
  });
});
