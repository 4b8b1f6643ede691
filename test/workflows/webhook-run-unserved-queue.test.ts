import { LedgerStore } from '../../shared/credits/ledger-store';
import { type RunningWorkers, runWorkers } from '../../workers/run-workers';
import { runsQueue } from '../../workers/runs-queue';
import { startTestStack, type TestStack } from '../support/stack';
import { addWorkflow, type GroupSetup, setupGroup, trigger, waitForRun } from '../support/webhook-runs';

/**
 * Issue 17: "a node kind whose queue no worker serves leaves its runs `running` forever". Here the
 * runs queue is served and node-model is not (template nodes need no queue: the run evaluates
 * them itself): the node's schedule-to-start bound (RUN_NODE_START_TIMEOUT_MS) fails the run with
 * a code that says what is missing.
 */
describe('a run whose node queue no worker serves', () => {
  let stack: TestStack;
  let workers: RunningWorkers;
  let g: GroupSetup;

  beforeAll(async () => {
    stack = await startTestStack({
      env: { RUN_NODE_START_TIMEOUT_MS: '1500', MODEL_API_URL: 'http://127.0.0.1:9/v1', MODEL_NAME: 'nobody' },
    });
    workers = await runWorkers(
      { config: stack.config, db: stack.db, temporal: stack.temporal, identity: `test-${process.pid}` },
      [runsQueue],
      stack.config.temporalAddress,
    );
    g = await setupGroup(stack.db);
    // A trigger reaching a model node needs the workspace's credits for it.
    await new LedgerStore(stack.db.models).grant({
      wallet: `ws:${g.workspaceId}`,
      credits: 100,
      creditType: 'admin_grant',
    });
  }, 120_000);
  afterAll(async () => {
    await workers?.shutdown();
    await stack?.stop();
  });

  it('fails node_queue_unserved once the bound passes, naming the queue; the execution closes Failed', async () => {
    const wf = await addWorkflow(stack.db, g, {
      name: 'nobody home',
      nodes: [{ id: 'ask', type: 'model', prompt: '{{prompt}}' }],
      edges: [],
    });
    const res = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'anyone?' });
    expect(res.status).toBe(200);
    const runId = res.body.data.run.run_id;
    const t0 = Date.now();
    const run = await waitForRun(stack.server.mainUrl, runId, g.token, 60_000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(run).toMatchObject({ status: 'failed', error_code: 'node_queue_unserved', response_text: null });
    expect(run.error_message).toContain(stack.temporal.queue('node-model-v1'));
    expect(run.run_metadata.nodes).toEqual([
      { id: 'ask', type: 'model', status: 'failed', error_code: 'node_queue_unserved' },
    ]);
    // The record is written inside the run's last workflow task; the execution closes with that task's completion.
    const handle = stack.temporal.client.workflow.getHandle(runId);
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.describe()).status.name).toBe('FAILED');
  });
});
