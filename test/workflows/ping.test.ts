import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { temporalTestServer } from '../../scripts/services/paths';
import { createPingActivities } from '../../temporal/ping/activities';
import { runPing } from '../../temporal/ping/client';
import { PING_QUEUE } from '../../temporal/ping/config';
import { pingWorkflowId } from '../../temporal/ping/ids';
import { workflowBundle } from '../../workers/workflow-bundle';
import { installTestRuntime } from '../support/runtime';
import { startTestStack, TestStack } from '../support/stack';

describe('ping workflow on the real Temporal dev server', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ workers: true, env: { HEALTH_DETAILS_TOKEN: 'ping-test-operator-token' } });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('runs through a worker, writes to the store, and is findable by search attribute', async () => {
    const tag = `t-${Date.now()}`;
    const result = await runPing(stack.temporal, tag);
    expect(result.workflowId).toBe(pingWorkflowId(tag));
    const doc = await stack.db.models.pings.findById(pingWorkflowId(tag)).lean();
    expect(doc?.worker).toBe(`test-${process.pid}`);
    const desc = await stack.temporal.client.workflow.getHandle(pingWorkflowId(tag)).describe();
    expect(desc.status.name).toBe('COMPLETED');
    expect(desc.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toContainEqual(['FlowKind', 'ping']);
  });

  it('shows the last ping on the health details page', async () => {
    await runPing(stack.temporal, 'details');
    // The worker identity (host and pid) is shown only with the operator token.
    const res = (await fetch(`${stack.server.apiUrl}/health/details`, {
      headers: { authorization: 'Bearer ping-test-operator-token' },
    }).then((r) => r.json())) as any;
    expect(res.last_ping.workflow_id).toMatch(/^ping:/);
  });
});

describe('ping workflow on the time-skipping test server', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    installTestRuntime();
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: temporalTestServer() } },
    });
  });
  afterAll(async () => {
    await env?.teardown();
  });

  it('retries the activity until the store write succeeds', async () => {
    let calls = 0;
    const written: string[] = [];
    const flaky = {
      updateOne: async (filter: { _id: string }) => {
        calls += 1;
        if (calls < 3) throw new Error('store hiccup');
        written.push(filter._id);
      },
    };
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: PING_QUEUE,
      workflowBundle: await workflowBundle(),
      activities: createPingActivities({ pings: flaky as never, workerIdentity: 'ts' }),
    });
    const result = await worker.runUntil(
      env.client.workflow.execute('pingWorkflow', { taskQueue: PING_QUEUE, workflowId: pingWorkflowId('skip') }),
    );
    expect(calls).toBe(3);
    expect(written).toEqual([pingWorkflowId('skip')]);
    expect(result.worker).toBe('ts');
  });
});
