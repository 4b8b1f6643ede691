import { buildRoot } from '../../shared/composition/root';
import { ids } from '../../shared/platform/ids/index';
import { RunRepository } from '../../shared/webhook-runs/repository';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { createEngines } from '../../temporal/engines';
import { ensureRunHealSchedule, runHealScheduleId, runRunHeal } from '../../temporal/run-heal/client';
import { runHealWorkflowId } from '../../temporal/run-heal/ids';
import { replayHistory } from '../support/histories';
import { startTestStack, type TestStack } from '../support/stack';
import { addWorkflow, setupGroup, templateWorkflow, waitForRun } from '../support/webhook-runs';

describe('webhook runs a trigger inserted but never started are healed by a workflow on the system queue', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it("starts a crashed trigger's run once, leaves a run that has an execution, fails a run whose version is gone, ignores a recent one", async () => {
    const g = await setupGroup(stack.db);
    const wfId = await addWorkflow(stack.db, g, templateWorkflow('heal'));
    const root = buildRoot({ config: stack.config, db: stack.db, engines: createEngines(stack.temporal) });
    const service = root.services.webhookRuns;
    const access = await service.authenticate(`Bearer ${g.token}`);
    const wf = (await new WorkflowRepository(stack.db.models).runnable(wfId))!;
    const runs = new RunRepository(stack.db.models);
    const past = new Date(Date.now() - 5 * 60_000);

    // What a trigger writes before it starts the workflow; then the process dies (no start).
    const orphan = ids.run();
    await runs.insertRun(service.newRun(orphan, access, wf, { prompt: 'orphan' }, past));
    // One whose workflow was started (by a replay, say) on a queue no worker serves yet: it stays queued.
    const held = ids.run();
    await runs.insertRun(service.newRun(held, access, wf, { prompt: 'held' }, past));
    const heldHandle = await stack.temporal.client.workflow.start('webhookRun', {
      taskQueue: stack.temporal.queue('nobody-serves-this'),
      workflowId: held,
      args: [],
    });
    // One whose recorded version is no longer published.
    const gone = ids.run();
    await runs.insertRun({
      ...service.newRun(gone, access, wf, { prompt: 'gone' }, past),
      workflow_version: '99.0.0',
    });
    // A trigger still in progress (inserted just now): not the healer's.
    const recent = ids.run();
    await runs.insertRun(service.newRun(recent, access, wf, { prompt: 'recent' }, new Date()));

    const tag = `t-${Date.now()}`;
    const result = await runRunHeal(stack.temporal, tag, 60);
    expect(result).toEqual({ found: 3, started: 1, existing: 1, failed: 1 });

    const done = await waitForRun(stack.server.mainUrl, orphan, g.token, 90_000);
    expect(done).toMatchObject({ status: 'completed', response_text: 'Hello, orphan!' });

    const heldDesc = await stack.temporal.client.workflow.getHandle(held).describe();
    expect(heldDesc.runId).toBe(heldHandle.firstExecutionRunId);
    expect((await runs.get(held))!.run.status).toBe('queued');

    const failed = (await runs.get(gone))!.run;
    expect(failed).toMatchObject({ status: 'failed', error_code: 'run_not_startable' });
    expect(failed.error_message).toContain('99.0.0');
    await expect(stack.temporal.client.workflow.getHandle(gone).describe()).rejects.toThrow();

    expect((await runs.get(recent))!.run.status).toBe('queued');

    // Again: the healed run is no longer queued, the held one is still its own execution.
    const again = await runRunHeal(stack.temporal, `${tag}-again`, 60);
    expect(again).toEqual({ found: 1, started: 0, existing: 1, failed: 0 });
    expect((await stack.temporal.client.workflow.getHandle(held).describe()).runId).toBe(
      heldHandle.firstExecutionRunId,
    );

    await heldHandle.terminate('test over');
    await replayHistory(
      'webhook-run-heal',
      await stack.temporal.client.workflow.getHandle(runHealWorkflowId(tag)).fetchHistory(),
    );
  }, 180_000);

  it('is a Temporal Schedule on the system queue, created once with the configured bound', async () => {
    await ensureRunHealSchedule(stack.temporal, 60);
    await ensureRunHealSchedule(stack.temporal, 60);
    const handle = stack.temporal.client.schedule.getHandle(runHealScheduleId(stack.temporal));
    try {
      const desc = await handle.describe();
      expect(desc.action).toMatchObject({
        type: 'startWorkflow',
        workflowType: 'webhookRunHealWorkflow',
        taskQueue: stack.temporal.queue('system-v1'),
        args: [{ staleSeconds: 60 }],
      });
      expect(desc.spec.intervals?.[0]?.every).toBe(60_000);
    } finally {
      await handle.delete();
    }
  });
});
