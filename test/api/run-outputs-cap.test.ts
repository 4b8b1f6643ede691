import { startTestStack, type TestStack } from '../support/stack';
import { addWorkflow, type GroupSetup, setupGroup, trigger, waitForRun } from '../support/webhook-runs';

jest.setTimeout(300_000);

/**
 * Every node is handed the outputs of the nodes before it (a node activity's input carries them
 * all), so a run bounds their total: past it, the next node is not started and the run fails with
 * a clear error, instead of an activity input past Temporal's payload limit ending the execution
 * with the run record left running.
 */
describe('the run-wide bound on node outputs, on the real API, Temporal and store', () => {
  let stack: TestStack;
  let g: GroupSetup;

  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    g = await setupGroup(stack.db);
  });
  afterAll(async () => stack?.stop());

  it('five outputs of 250,000 bytes each (each under the per-node cap): the sixth node is not started, the run fails run_outputs_too_large', async () => {
    const big = (id: string) => ({ id, type: 'template', template: '{{prompt}}'.repeat(25) });
    const wf = await addWorkflow(stack.db, g, {
      name: 'heavy',
      nodes: [big('a'), big('b'), big('c'), big('d'), big('e'), { id: 'f', type: 'template', template: 'done' }],
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'd' },
        { from: 'd', to: 'e' },
        { from: 'e', to: 'f' },
      ],
    });
    const res = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'y'.repeat(10_000) });
    expect(res.status).toBe(200);
    const done = await waitForRun(stack.server.mainUrl, res.body.data.run.run_id, g.token, 180_000);
    expect(done).toMatchObject({ status: 'failed', error_code: 'run_outputs_too_large', response_text: null });
    expect(done.error_message).toMatch(/node outputs total 1250000 bytes; the limit is 1048576/);
    expect(done.run_metadata.nodes.map((n: { id: string; status: string }) => [n.id, n.status])).toEqual([
      ['a', 'completed'],
      ['b', 'completed'],
      ['c', 'completed'],
      ['d', 'completed'],
      ['e', 'completed'],
      ['f', 'failed'],
    ]);
    // The execution ended as the record says (failed, the error code its failure type).
    const handle = stack.temporal.client.workflow.getHandle(res.body.data.run.run_id);
    await expect(handle.result()).rejects.toMatchObject({ cause: { type: 'run_outputs_too_large' } });
    expect((await handle.describe()).status.name).toBe('FAILED');
  });

  it('a run within the bound is untouched: four such outputs and a last node complete', async () => {
    const big = (id: string) => ({ id, type: 'template', template: '{{prompt}}'.repeat(25) });
    const wf = await addWorkflow(stack.db, g, {
      name: 'heavy-but-fine',
      nodes: [big('a'), big('b'), big('c'), big('d'), { id: 'f', type: 'template', template: 'done' }],
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'd' },
        { from: 'd', to: 'f' },
      ],
    });
    const res = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'y'.repeat(10_000) });
    const done = await waitForRun(stack.server.mainUrl, res.body.data.run.run_id, g.token, 180_000);
    expect(done).toMatchObject({ status: 'completed', response_text: 'done' });
  });
});
