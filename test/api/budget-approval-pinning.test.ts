import { WorkflowRepository } from '../../shared/workflows/repository';
import { startTestStack, type TestStack } from '../support/stack';
import { type GroupSetup, setupGroup, trigger, waitForRun } from '../support/webhook-runs';

/** Issue 18 item 6: a budget approves a workflow at a version; runs execute exactly that version. */
describe('budget approvals pinned to a workflow version', () => {
  let stack: TestStack;
  let g: GroupSetup;
  let workflows: WorkflowRepository;

  beforeAll(async () => {
    stack = await startTestStack({ workers: true, queues: ['runs', 'node-template'] });
    g = await setupGroup(stack.db);
    workflows = new WorkflowRepository(stack.db.models);
  });
  afterAll(async () => {
    await stack.stop();
  });

  /** A wallet-authored (no workspace) workflow whose template says `text`. */
  const authored = (text: string) =>
    workflows.create(
      {
        name: 'authored',
        description: 'by a wallet',
        nodes: [{ id: 'say', type: 'template', template: `${text} {{prompt}}` }],
        edges: [],
      },
      { workspaceId: null },
    );
  const setText = (id: string, text: string) =>
    workflows.updateDraft(id, { nodes: [{ id: 'say', type: 'template', template: `${text} {{prompt}}` }] }, new Date());
  const run = async (id: string) => {
    const res = await trigger(stack.server.mainUrl, g.token, id, { prompt: 'x' });
    expect(res.status).toBe(200);
    return waitForRun(stack.server.mainUrl, res.body.data.run.run_id, g.token);
  };

  it('runs the approved version after the author publishes a new one, asks again for the new one, and runs it once approved', async () => {
    const wf = await authored('v1');
    await workflows.publish(wf._id, '1.0.0');
    const blocked = await trigger(stack.server.mainUrl, g.token, wf._id, { prompt: 'x' });
    expect([blocked.status, blocked.body.error]).toEqual([409, 'workflow_not_on_budget']);
    const request = await g.repo.getApproval(blocked.body.data.workflow_request_id);
    expect(request).toMatchObject({ kind: 'add_workflow', workflow_id: wf._id, workflow_version: '1.0.0' });
    await g.repo.approve(request!._id, { by: 'operator' });
    expect((await g.repo.getBudget(g.budgetId))!.workflow_versions[wf._id]).toBe('1.0.0');
    expect(await run(wf._id)).toMatchObject({
      status: 'completed',
      response_text: 'v1 x',
      run_metadata: expect.objectContaining({ workflow_version: '1.0.0' }),
    });

    // The author changes the workflow and publishes it: the budget still runs what it approved.
    await setText(wf._id, 'v2');
    await workflows.publish(wf._id, '1.1.0');
    expect(await run(wf._id)).toMatchObject({ status: 'completed', response_text: 'v1 x' });
    const asked = (await g.repo.listApprovals({ status: 'open', workspaceId: g.workspaceId })).filter(
      (a) => a.workflow_id === wf._id,
    );
    expect(asked).toEqual([
      expect.objectContaining({ kind: 'add_workflow', workflow_version: '1.1.0', budget_id: g.budgetId }),
    ]);
    // A draft change after that is never run either.
    await setText(wf._id, 'draft');
    await g.repo.approve(asked[0]._id, { by: 'operator' });
    expect(await run(wf._id)).toMatchObject({
      status: 'completed',
      response_text: 'v2 x',
      run_metadata: expect.objectContaining({ workflow_version: '1.1.0' }),
    });
    // A stale approval of an older version never rolls the budget back.
    await g.repo.addWorkflowToBudget(g.budgetId, wf._id, new Date(), '1.0.0');
    expect((await g.repo.getBudget(g.budgetId))!.workflow_versions[wf._id]).toBe('1.1.0');
  });

  it("never runs a third party's draft, even one listed on the budget", async () => {
    const wf = await authored('unpublished');
    await g.repo.addWorkflowToBudget(g.budgetId, wf._id);
    const res = await trigger(stack.server.mainUrl, g.token, wf._id, { prompt: 'x' });
    expect([res.status, res.body.error]).toEqual([404, 'workflow_not_found']);
  });

  it('an approval made before pinning (no version) pins the latest published version at first use', async () => {
    const wf = await authored('first');
    await workflows.publish(wf._id, '1.0.0');
    await stack.db.models.budgetWorkflows.collection.insertOne({
      _id: `${g.budgetId}:${wf._id}`,
      budget_id: g.budgetId,
      workflow_id: wf._id,
      created_at: new Date(),
    } as never);
    expect(await run(wf._id)).toMatchObject({ response_text: 'first x' });
    expect((await g.repo.getBudget(g.budgetId))!.workflow_versions[wf._id]).toBe('1.0.0');
    await setText(wf._id, 'second');
    await workflows.publish(wf._id, '2.0.0');
    expect(await run(wf._id)).toMatchObject({ response_text: 'first x' });
  });
});
