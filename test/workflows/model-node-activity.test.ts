import { MockActivityEnvironment } from '@temporalio/testing';
import type { Models } from '../../shared/db';
import { createModelNodeActivities } from '../../temporal/webhook-runs/activities/model';
import { startModelServer, type ModelServer } from '../support/model-server';

/** The model activity outside a worker, with Context (heartbeats, cancellation) from MockActivityEnvironment. */
describe('model node activity in a MockActivityEnvironment', () => {
  let model: ModelServer;
  beforeAll(async () => {
    model = await startModelServer();
  });
  afterAll(async () => {
    await model.close();
  });
  const call = { runId: 'run_' + '0'.repeat(24), node: { id: 'ask', type: 'model' as const, prompt: 'Hi {{prompt}}' }, prompt: 'Ada', outputs: {}, metadata: {}, workspaceId: 'ws_x', budgetId: 'bud_x' };
  const acts = () => createModelNodeActivities({ models: {} as Models, identity: 'mock', model: { url: model.url, name: 'm', timeoutMs: 30_000 } });

  it('answers with the completion and heartbeats while waiting', async () => {
    model.behave({ delayMs: 1500, status: 200 });
    const env = new MockActivityEnvironment();
    let beats = 0;
    env.on('heartbeat', () => beats++);
    expect(await env.run(acts().runModelNode, call)).toMatchObject({ output: 'echo: Hi Ada', model: 'test-model-1', worker: 'mock' });
    expect(beats).toBeGreaterThanOrEqual(2);
  });

  it('aborts the HTTP call when the activity is cancelled', async () => {
    model.behave({ delayMs: 30_000 });
    const env = new MockActivityEnvironment();
    const before = model.requests.length;
    const running = env.run(acts().runModelNode, call);
    await model.waitForRequests(before + 1);
    env.cancel();
    await expect(running).rejects.toMatchObject({ name: 'CancelledFailure' });
    expect(await model.requests[before].aborted).toBe(true);
    model.behave({ delayMs: 0 });
  });
});
