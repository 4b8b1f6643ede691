import { LedgerStore } from '../../shared/credits/ledger-store';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { ensureSearchAttributes } from '../../temporal/connection';
import { selectQueues } from '../../workers/queues';
import { type RunningWorkers, runWorkers } from '../../workers/run-workers';
import { type ModelServer, startModelServer } from '../support/model-server';
import { startTestStack, type TestStack } from '../support/stack';
import { addWorkflow, type GroupSetup, setupGroup, trigger, waitForRun } from '../support/webhook-runs';

const SLOTS = 2;
// Long enough that the other group's run, however slow a loaded machine makes it, ends while these are held.
const SLOW_MS = 30_000;

/**
 * Issue 18 item 1: a wallet-authored graph whose model node holds its worker slots (a slow model
 * answer) does not delay another group's run: untrusted graphs' nodes have queues of their own.
 * Each model queue gets SLOTS slots here, as a small deployment would; everything else is real.
 */
describe('untrusted graphs on task queues of their own', () => {
  let stack: TestStack;
  let model: ModelServer;
  let workers: RunningWorkers;
  let attacker: GroupSetup;
  let victim: GroupSetup;

  beforeAll(async () => {
    model = await startModelServer();
    model.behave({ delayFor: (body) => (JSON.stringify(body.messages).includes('SLOW') ? SLOW_MS : 0) });
    stack = await startTestStack({ env: { MODEL_API_URL: model.url, MODEL_NAME: 'configured-model' } });
    await ensureSearchAttributes(stack.temporal);
    const queues = selectQueues('all').map((q) =>
      /(^|-)node-model$/.test(q.key)
        ? { ...q, workerOptions: { ...q.workerOptions, maxConcurrentActivityTaskExecutions: SLOTS } }
        : q,
    );
    workers = await runWorkers(
      { config: stack.config, db: stack.db, temporal: stack.temporal, identity: `test-${process.pid}` },
      queues,
      stack.config.temporalAddress,
    );
    const ledger = new LedgerStore(stack.db.models);
    attacker = await setupGroup(stack.db);
    victim = await setupGroup(stack.db);
    for (const g of [attacker, victim])
      await ledger.grant({ wallet: `ws:${g.workspaceId}`, credits: 100_000, creditType: 'admin_grant' });
  });
  afterAll(async () => {
    await workers?.shutdown();
    await stack.stop();
    await model.close();
  });

  const runToEnd = async (g: GroupSetup, workflowId: string) => {
    const res = await trigger(stack.server.mainUrl, g.token, workflowId, { prompt: 'go' });
    expect(res.status).toBe(200);
    return waitForRun(stack.server.mainUrl, res.body.data.run.run_id, g.token, 60_000);
  };

  it("a wallet-authored graph holding every model slot does not delay another group's model run: it completes while every slot is still held", async () => {
    const own = await addWorkflow(stack.db, victim, {
      name: 'own',
      nodes: [{ id: 'ask', type: 'model', prompt: 'fast {{prompt}}', max_tokens: 16 }],
      edges: [],
    });
    const baseline = await runToEnd(victim, own);
    expect(baseline).toMatchObject({ status: 'completed', response_text: 'echo: fast go' });

    // A wallet publishes a graph whose model node answers slowly; a group approved it; it runs SLOTS times at once.
    const workflows = new WorkflowRepository(stack.db.models);
    const poisoned = await workflows.create(
      {
        name: 'poisoned',
        description: 'by a wallet',
        nodes: [{ id: 'ask', type: 'model', prompt: 'SLOW {{prompt}}', max_tokens: 16 }],
        edges: [],
      },
      { workspaceId: null },
    );
    await workflows.publish(poisoned._id, '1.0.0');
    await attacker.repo.addWorkflowToBudget(attacker.budgetId, poisoned._id, new Date(), '1.0.0');
    const before = model.requests.length;
    const attacks = await Promise.all(
      Array.from({ length: SLOTS }, (_, i) =>
        trigger(stack.server.mainUrl, attacker.token, poisoned._id, { prompt: `a${i}` }),
      ),
    );
    for (const a of attacks) expect(a.status).toBe(200);
    await model.waitForRequests(before + SLOTS);

    const during = await runToEnd(victim, own);
    expect(during).toMatchObject({ status: 'completed', response_text: 'echo: fast go' });
    // Causal rather than a latency race on a loaded machine: on a shared queue the run would have
    // waited for a slot, that is for a slow answer.
    const slow = model.requests.slice(before).filter((r) => JSON.stringify(r.body.messages).includes('SLOW'));
    expect(slow.map((r) => r.answered)).toEqual(Array(SLOTS).fill(false));

    // The poisoned runs still finish (their own queue served them), each with its slow answer.
    for (const a of attacks)
      expect(await waitForRun(stack.server.mainUrl, a.body.data.run.run_id, attacker.token, 120_000)).toMatchObject({
        status: 'completed',
      });
  }, 240_000);
});
