import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type RunningLocalChain, startLocalChain } from '../../scripts/services/local-chain';
import { freePort } from '../../scripts/services/process';
import { startTemporalDev } from '../../scripts/services/temporal';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { modelHoldId } from '../../shared/workflows/nodes/model/activity';
import { settlementWorkflowId } from '../../temporal/x402-settlement/ids';
import { rpc } from '../support/chain-control';
import { http } from '../support/http';
import { type ModelServer, startModelServer } from '../support/model-server';
import { creditedOnce, purchaseBroadcastUnmined } from '../support/purchase';
import { makeSchedule, scheduleAccount, schedulesApi } from '../support/schedules';
import { startTestStack, type TestStack } from '../support/stack';
import { addWorkflow, type GroupSetup, setupGroup, trigger, waitForRun } from '../support/webhook-runs';

/**
 * The Temporal server stopped and started again (same state file) with runs in flight, the API
 * and the workers left running: the runs finish, each model node charged once; a trigger while
 * the server is away answers 503 workflow_engine_unavailable and, retried with its request_id
 * once the server is back, runs. An x402 settlement broadcast before the stop settles after it,
 * granting its credits once; a schedule lease runs out on time while the server is away.
 */
describe('fault: Temporal restarted with runs in flight', () => {
  let dir: string;
  let ports: { port: number; uiPort: number };
  let temporal: Awaited<ReturnType<typeof startTemporalDev>>;
  let model: ModelServer;
  let stack: TestStack;
  let g: GroupSetup;
  let chain: RunningLocalChain;
  const start = () => startTemporalDev({ ...ports, dbFile: path.join(dir, 'state.db') });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'fault-temporal-'));
    ports = { port: await freePort(), uiPort: await freePort() };
    temporal = await start();
    model = await startModelServer();
    // Its own chain: the settlement test stops mining.
    chain = await startLocalChain();
    Object.assign(process.env, chain.env);
    stack = await startTestStack({
      workers: true,
      env: {
        TEMPORAL_ADDRESS: `127.0.0.1:${ports.port}`,
        MODEL_API_URL: model.url,
        MODEL_NAME: 'm',
        X402_SETTLE_WAIT_MS: '300',
        SCHEDULE_LEASE_MIN_SECONDS: '1',
      },
    });
    g = await setupGroup(stack.db);
    await new LedgerStore(stack.db.models).grant({
      wallet: `ws:${g.workspaceId}`,
      credits: 10_000,
      creditType: 'admin_grant',
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await model?.close();
    await temporal?.stop();
    await chain?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('finishes the runs in flight, charges each model node once, and refuses triggers while it is away with 503', async () => {
    const wf = await addWorkflow(stack.db, g, {
      name: 'slow model',
      nodes: [
        { id: 'ask', type: 'model', prompt: '{{prompt}}', max_tokens: 64 },
        { id: 'say', type: 'template', template: 'model said: {{nodes.ask.output}}' },
      ],
      edges: [{ from: 'ask', to: 'say' }],
    });
    const quick = await addWorkflow(stack.db, g, {
      name: 'quick',
      nodes: [{ id: 't', type: 'template', template: 'hi {{prompt}}' }],
      edges: [],
    });
    model.behave({ delayMs: 2500 });
    const runs: string[] = [];
    for (const p of ['one', 'two', 'three'])
      runs.push((await trigger(stack.server.mainUrl, g.token, wf, { prompt: p })).body.data.run.run_id);
    await model.waitForRequests(3, 30_000);

    await temporal.stop();
    const refused = await trigger(stack.server.mainUrl, g.token, quick, {
      prompt: 'while away',
      request_id: 'during-outage',
    });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ success: false, error: 'workflow_engine_unavailable' });
    await new Promise((r) => setTimeout(r, 2000));
    model.behave({ delayMs: 0 });
    temporal = await start();

    const done = await Promise.all(runs.map((id) => waitForRun(stack.server.mainUrl, id, g.token, 120_000)));
    expect(done.map((r) => [r.status, r.response_text])).toEqual([
      ['completed', 'model said: echo: one'],
      ['completed', 'model said: echo: two'],
      ['completed', 'model said: echo: three'],
    ]);
    for (const r of done) {
      const charges = await stack.db.models.creditTransactions
        .countDocuments({
          user_id: `ws:${g.workspaceId}`,
          transaction_type: 'purchase',
          request_id: modelHoldId(r.run_id, 'ask'),
        })
        .exec();
      expect({ run: r.run_id, charges }).toEqual({ run: r.run_id, charges: 1 });
    }

    let retried = await trigger(stack.server.mainUrl, g.token, quick, {
      prompt: 'while away',
      request_id: 'during-outage',
    });
    for (let i = 0; i < 30 && retried.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      retried = await trigger(stack.server.mainUrl, g.token, quick, {
        prompt: 'while away',
        request_id: 'during-outage',
      });
    }
    expect([200, 202]).toContain(retried.status);
    expect(await waitForRun(stack.server.mainUrl, retried.body.data.run.run_id, g.token, 60_000)).toMatchObject({
      status: 'completed',
      response_text: 'hi while away',
    });
  }, 300_000);

  it('settles an x402 purchase broadcast before the stop once it is back, granting the credits once; a lease runs out meanwhile', async () => {
    const wallet = '0x' + 'c7'.repeat(20);
    const { url, body, header, payer, paymentId } = await purchaseBroadcastUnmined(stack, chain.rpcUrl, wallet);

    const api = schedulesApi(stack.server.mainUrl);
    const acct = await scheduleAccount(stack.db, 'restart');
    const s = await makeSchedule(stack.db, acct);
    const held = (await api('POST', '/claim', acct.auth, { schedule_id: s._id, lease_seconds: 1 })).body.data;

    await temporal.stop();
    await rpc(chain.rpcUrl, 'evm_setAutomine', [true]);
    await rpc(chain.rpcUrl, 'evm_mine');
    await new Promise((r) => setTimeout(r, 1500));
    // No timer and no worker decide a lease's end: the occurrence is due again and claimable.
    const due = (await api('GET', '/due', acct.auth)).body.data.occurrences;
    expect(due.map((o: any) => [o.schedule_id, o.due_at])).toContainEqual([s._id, held.due_at]);
    const next = await api('POST', '/claim', acct.auth, { schedule_id: s._id, lease_seconds: 60 });
    expect(next.status).toBe(200);
    expect(next.body.data.claim_token).not.toBe(held.claim_token);
    expect(
      (await api('POST', `/${s._id}/advance`, acct.auth, { due_at: held.due_at, claim_token: held.claim_token })).body
        .error_code,
    ).toBe('claim_expired');
    temporal = await start();

    const outcome = await stack.temporal.client.workflow.getHandle(settlementWorkflowId(paymentId)).result();
    expect(outcome).toMatchObject({ status: 'completed' });
    const again = await http('POST', url, { body, headers: { 'x-payment': header } });
    expect(again.status).toBe(200);
    expect(again.body.data.payment_id).toBe(paymentId);
    expect(await creditedOnce(stack, wallet, payer)).toEqual({ balance: 500, grants: 1, payerLeft: 0n });
  }, 180_000);
});
