import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { Webhook } from 'standardwebhooks';
import type { Repositories } from '../../shared/composition/root';
import type { RetrySchedule } from '../../shared/webhook-runs/callback-schedule';
import { createCallbackActivities } from '../../temporal/webhook-callbacks/activities';
import { CALLBACK_QUEUE } from '../../temporal/webhook-callbacks/config';
import { callbackWorkflowId } from '../../temporal/webhook-callbacks/ids';
import { callbackDeliveryWorkflow } from '../../temporal/webhook-callbacks/workflows';
import { workflowBundle } from '../../workers/workflow-bundle';
import { openTestDb } from '../support/db';
import { saveHistory } from '../support/histories';
import { type HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { repositoriesOf } from '../support/repositories';
import { storeFinishedRun } from '../support/runs-store';
import { timeSkippingEnv } from '../support/time-skipping';
import { type GroupSetup, setupGroup } from '../support/webhook-runs';

const SCHEDULE: RetrySchedule = {
  maxAttempts: 6,
  initialIntervalMs: 10_000,
  backoffCoefficient: 2,
  maxIntervalMs: 3_600_000,
  jitter: 0.2,
};

describe('callback delivery on the time-skipping test server (real store, real HTTPS receiver)', () => {
  let env: TestWorkflowEnvironment;
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let receiver: HttpsReceiver;
  let repos: Repositories;
  let g: GroupSetup;
  let worker: Worker;
  let running: Promise<void>;

  beforeAll(async () => {
    db = await openTestDb();
    repos = repositoriesOf(db);
    receiver = await startHttpsReceiver();
    g = await setupGroup(db);
    env = await timeSkippingEnv();
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: CALLBACK_QUEUE,
      workflowBundle: await workflowBundle(),
      activities: createCallbackActivities({
        ...repos,
        callbacks: { allowLoopback: true, caFile: receiver.caFile },
      }),
    });
    running = worker.run();
  }, 120_000);
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
    await receiver?.close();
    await db?.drop();
  });

  async function deliver(runId: string, schedule = SCHEDULE) {
    const handle = await env.client.workflow.start(callbackDeliveryWorkflow, {
      taskQueue: CALLBACK_QUEUE,
      workflowId: callbackWorkflowId(runId),
      args: [{ runId, groupId: g.groupId, schedule, timeoutMs: 15_000 }],
    });
    return { handle, result: await handle.result() };
  }

  it('retries 5xx and 429 with exponential backoff and jitter, honours Retry-After, and signs every attempt per Standard Webhooks', async () => {
    const runId = await storeFinishedRun(db, g, `${receiver.origin}/hooks/run`);
    receiver.received.length = 0;
    receiver.script([
      { status: 503 },
      { status: 500 },
      { status: 429, headers: { 'retry-after': '600' } },
      { status: 204 },
    ]);
    const t0 = await env.currentTimeMs();
    const { handle, result } = await deliver(runId);
    const elapsed = (await env.currentTimeMs()) - t0;

    expect(result).toMatchObject({ attempts: 4, status: 'delivered' });
    const [w1, w2, w3] = result.waits;
    expect(w1).toBeGreaterThanOrEqual(8_000);
    expect(w1).toBeLessThanOrEqual(10_000);
    expect(w2).toBeGreaterThanOrEqual(16_000);
    expect(w2).toBeLessThanOrEqual(20_000);
    expect(w3).toBe(600_000);
    expect(elapsed).toBeGreaterThanOrEqual(w1 + w2 + w3);

    expect(receiver.received).toHaveLength(4);
    const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
    expect([...ids]).toEqual([`msg_${runId}`]);
    const wh = new Webhook(g.webhookSecret);
    for (const r of receiver.received) {
      const payload = wh.verify(r.body, r.headers) as any;
      expect(payload).toMatchObject({
        type: 'webhook_run.completed',
        data: { run: { run_id: runId, status: 'completed', response_text: 'done' } },
      });
    }
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(
        receiver.received[0].body,
        receiver.received[0].headers,
      ),
    ).toThrow();

    const { run } = (await repos.runs.get(runId))!;
    expect(run).toMatchObject({
      callback_status: 'delivered',
      callback_last_status: 204,
      callback_last_error: null,
      callback_attempts: 4,
    });
    expect(run.callback_delivered_at).toBeInstanceOf(Date);
    expect(run.callback_attempted_at).toBeInstanceOf(Date);
    await saveHistory(handle, 'webhook-callback.json');
  }, 120_000);

  it('stops at 410, fails at other 4xx and at a redirect (not followed), and gives up after maxAttempts', async () => {
    const gone = await storeFinishedRun(db, g, `${receiver.origin}/gone`);
    receiver.received.length = 0;
    receiver.script([{ status: 410 }]);
    expect((await deliver(gone)).result).toMatchObject({ attempts: 1, status: 'failed' });
    expect((await repos.runs.get(gone))!.run).toMatchObject({
      callback_status: 'failed',
      callback_last_status: 410,
      callback_last_error: expect.stringContaining('410'),
    });

    const bad = await storeFinishedRun(db, g, `${receiver.origin}/bad`);
    receiver.script([{ status: 400 }]);
    expect((await deliver(bad)).result).toMatchObject({ attempts: 1, status: 'failed' });

    const moved = await storeFinishedRun(db, g, `${receiver.origin}/moved`);
    receiver.received.length = 0;
    receiver.script([{ status: 302, headers: { location: `${receiver.origin}/elsewhere` } }]);
    expect((await deliver(moved)).result).toMatchObject({ attempts: 1, status: 'failed' });
    expect(receiver.received).toHaveLength(1);
    expect((await repos.runs.get(moved))!.run.callback_last_error).toContain('not followed');

    const down = await storeFinishedRun(db, g, `${receiver.origin}/down`);
    receiver.script(Array.from({ length: 3 }, () => ({ status: 502 })));
    const r = await deliver(down, { ...SCHEDULE, maxAttempts: 3, jitter: 0 });
    expect(r.result).toMatchObject({ attempts: 3, status: 'failed', waits: [10_000, 20_000] });
    expect((await repos.runs.get(down))!.run).toMatchObject({
      callback_status: 'failed',
      callback_last_status: 502,
      callback_last_error: expect.stringContaining('gave up after 3 attempts'),
    });
  }, 120_000);

  it('treats no answer within the timeout as retryable', async () => {
    const slow = await storeFinishedRun(db, g, `${receiver.origin}/slow`);
    // 5 s, not 1 s: the second (prompt) answer over TLS must not time out as well on a loaded machine.
    receiver.script([{ status: 200, delayMs: 15_000 }, { status: 200 }]);
    const handle = await env.client.workflow.start(callbackDeliveryWorkflow, {
      taskQueue: CALLBACK_QUEUE,
      workflowId: callbackWorkflowId(slow),
      args: [{ runId: slow, groupId: g.groupId, schedule: { ...SCHEDULE, jitter: 0 }, timeoutMs: 5_000 }],
    });
    expect(await handle.result()).toMatchObject({ attempts: 2, status: 'delivered', waits: [10_000] });
  }, 120_000);
});
