import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/services/process';
import { startTemporalDev } from '../../scripts/services/temporal';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { modelHoldId } from '../../temporal/webhook-runs/activities/model';
import { startModelServer, type ModelServer } from '../support/model-server';
import { startTestStack, type TestStack } from '../support/stack';
import { addWorkflow, setupGroup, trigger, waitForRun, type GroupSetup } from '../support/webhook-runs';

/**
 * The Temporal server stopped and started again (same state file) with runs in flight, the API
 * and the workers left running: the runs finish, each model node charged once; a trigger while
 * the server is away answers 503 workflow_engine_unavailable and, retried with its request_id
 * once the server is back, runs.
 */
describe('fault: Temporal restarted with runs in flight', () => {
  let dir: string;
  let ports: { port: number; uiPort: number };
  let temporal: Awaited<ReturnType<typeof startTemporalDev>>;
  let model: ModelServer;
  let stack: TestStack;
  let g: GroupSetup;
  const start = () => startTemporalDev({ ...ports, dbFile: path.join(dir, 'state.db') });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'fault-temporal-'));
    ports = { port: await freePort(), uiPort: await freePort() };
    temporal = await start();
    model = await startModelServer();
    stack = await startTestStack({ workers: true, env: { TEMPORAL_ADDRESS: `127.0.0.1:${ports.port}`, MODEL_API_URL: model.url, MODEL_NAME: 'm' } });
    g = await setupGroup(stack.db);
    await new LedgerStore(stack.db.models).grant({ wallet: `ws:${g.workspaceId}`, credits: 10_000, creditType: 'admin_grant' });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await model?.close();
    await temporal?.stop();
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
    const quick = await addWorkflow(stack.db, g, { name: 'quick', nodes: [{ id: 't', type: 'template', template: 'hi {{prompt}}' }], edges: [] });
    model.behave({ delayMs: 2500 });
    const runs: string[] = [];
    for (const p of ['one', 'two', 'three']) runs.push((await trigger(stack.server.mainUrl, g.token, wf, { prompt: p })).body.data.run.run_id);
    await model.waitForRequests(3, 30_000);

    await temporal.stop();
    const refused = await trigger(stack.server.mainUrl, g.token, quick, { prompt: 'while away', request_id: 'during-outage' });
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
      const charges = await stack.db.models.creditTransactions.countDocuments({ user_id: `ws:${g.workspaceId}`, transaction_type: 'purchase', request_id: modelHoldId(r.run_id, 'ask') }).exec();
      expect({ run: r.run_id, charges }).toEqual({ run: r.run_id, charges: 1 });
    }

    let retried = await trigger(stack.server.mainUrl, g.token, quick, { prompt: 'while away', request_id: 'during-outage' });
    for (let i = 0; i < 30 && retried.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      retried = await trigger(stack.server.mainUrl, g.token, quick, { prompt: 'while away', request_id: 'during-outage' });
    }
    expect([200, 202]).toContain(retried.status);
    expect(await waitForRun(stack.server.mainUrl, retried.body.data.run.run_id, g.token, 60_000)).toMatchObject({ status: 'completed', response_text: 'hi while away' });
  }, 300_000);
});
