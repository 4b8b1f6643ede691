import { LedgerStore } from '../../shared/credits/ledger-store';
import { sha256Hex } from '../../shared/platform/ids/index';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { http } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';
import { addWorkflow, type GroupSetup, setupGroup, templateWorkflow, trigger } from '../support/webhook-runs';

jest.setTimeout(120_000);

/** What a trigger resolves (the bearer, the budget, its runnable workflow) and re-reads nothing for. */
const RESOLVED = [
  'agent_group_tokens',
  'agent_groups',
  'budgets',
  'workspaces',
  'budget_workflows',
  'budget_workflow_pins',
  'workflow_definitions',
  'workflow_versions',
  'credentials',
];
const REUSE_MS = 5000;

/**
 * A trigger reuses the bearer and the budget's runnable workflow it resolved for WEBHOOK_REUSE_MS
 * (default 5 s), on the real API and store (no workers: the runs stay queued; only triggers are
 * under test). What is granted is kept, never a refusal; money is read every time.
 */
describe('webhook triggers reuse what they resolved, and still refuse what they must', () => {
  let stack: TestStack;
  let g: GroupSetup;

  beforeAll(async () => {
    // A model endpoint is configured (never called: no worker runs the nodes) so runs that reach
    // a model node are checked against the workspace's balance.
    stack = await startTestStack({ env: { MODEL_API_URL: 'http://127.0.0.1:9/v1' } });
    g = await setupGroup(stack.db);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  /** The store commands this process sends while `work` runs, as `collection.method`. */
  async function commandsOf(work: () => Promise<unknown>): Promise<string[]> {
    const sent: string[] = [];
    stack.db.connection.set('debug', (collection: string, method: string) => sent.push(`${collection}.${method}`));
    try {
      await work();
    } finally {
      stack.db.connection.set('debug', false);
    }
    return sent;
  }
  const resolvedReads = (sent: string[]) => sent.filter((c) => RESOLVED.includes(c.split('.')[0]));
  const ok = async (token: string, wf: string, body: Record<string, unknown> = { prompt: 'x' }) => {
    const res = await trigger(stack.server.mainUrl, token, wf, body);
    expect([res.status, res.body.error]).toEqual([200, undefined]);
    return res.body.data.run.run_id as string;
  };

  it('a second trigger in the window sends only its insert: no bearer, budget or workflow read again', async () => {
    const wf = await addWorkflow(stack.db, g, templateWorkflow('reuse'));
    const first = await commandsOf(() => ok(g.token, wf));
    // The first one resolved them (the group itself is kept by the process for good).
    expect(resolvedReads(first)).toEqual(
      expect.arrayContaining([
        'agent_group_tokens.findOne',
        'budgets.findOne',
        'workspaces.findOne',
        'workflow_definitions.findOne',
      ]),
    );
    const second = await commandsOf(() => ok(g.token, wf));
    expect(resolvedReads(second)).toEqual([]);
    expect(second).toEqual(['webhook_runs.insertOne']);
    // With a request id: its lookup and its claim, still nothing resolved again.
    const keyed = await commandsOf(() => ok(g.token, wf, { prompt: 'x', request_id: `reuse-${Date.now()}` }));
    expect(resolvedReads(keyed)).toEqual([]);
    expect(keyed).toContain('webhook_runs.insertOne');
  });

  it('a token revoked in this process is refused at once, for triggers and reads', async () => {
    const wf = await addWorkflow(stack.db, g, templateWorkflow('revoke-here'));
    const { token, tokenId } = await g.repo.issueGroupToken(g.groupId);
    const runId = await ok(token, wf);
    expect(await g.repo.revokeGroupToken(tokenId)).toBe(true);
    const refused = await trigger(stack.server.mainUrl, token, wf, { prompt: 'x' });
    expect([refused.status, refused.body.error]).toEqual([401, 'invalid_bearer']);
    const read = await http('GET', `${stack.server.mainUrl}/api/agent-webhooks/runs/${runId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(read.status).toBe(401);
  });

  it('a token revoked by another process (straight in the store) is refused within the window', async () => {
    const wf = await addWorkflow(stack.db, g, templateWorkflow('revoke-elsewhere'));
    const { token } = await g.repo.issueGroupToken(g.groupId);
    await ok(token, wf);
    // What the admin CLI's revocation writes, without this process's change count knowing.
    await stack.db.models.agentGroupTokens.updateOne({ _id: sha256Hex(token) }, { $set: { revoked_at: new Date() } });
    const revokedAt = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < REUSE_MS + 15_000) {
      status = (await trigger(stack.server.mainUrl, token, wf, { prompt: 'x' })).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(401);
    // The window, plus the slack of a loaded machine's requests.
    expect(Date.now() - revokedAt).toBeLessThan(REUSE_MS + 5000);
  });

  it('a refusal is never served from what was kept: a workflow listed by another process runs at once', async () => {
    const listed = await addWorkflow(stack.db, g, templateWorkflow('listed'));
    const other = await g.repo.issueGroupToken(g.groupId);
    // Both bearers (and the budget as it is now) are kept.
    await ok(g.token, listed);
    await ok(other.token, listed);
    const wf = await addWorkflow(stack.db, g, templateWorkflow('listed-later'), { onBudget: false });
    const blocked = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'x' });
    expect([blocked.status, blocked.body.error]).toEqual([409, 'workflow_not_on_budget']);
    // The budget link as addWorkflowToBudget writes it, from "another process" (no change count).
    await stack.db.models.budgetWorkflows.collection.insertOne({
      _id: `${g.budgetId}:${wf}`,
      budget_id: g.budgetId,
      workflow_id: wf,
      version: null,
      created_at: new Date(),
    } as never);
    await ok(g.token, wf);
    // The other token's kept budget predates the listing; the graph kept since is still run.
    await ok(other.token, wf);
    // A third party's workflow that only has a draft is refused every time, and runs once published here.
    const workflows = new WorkflowRepository(stack.db.models);
    const draft = await workflows.create(templateWorkflow('third party'), { workspaceId: null });
    await g.repo.addWorkflowToBudget(g.budgetId, draft._id);
    for (let i = 0; i < 2; i++) {
      const r = await trigger(stack.server.mainUrl, g.token, draft._id, { prompt: 'x' });
      expect([r.status, r.body.error]).toEqual([404, 'workflow_not_found']);
    }
    await workflows.publish(draft._id, '1.0.0');
    await ok(g.token, draft._id);
  });

  it('a version published in this process is run (and pinned) by the next trigger, not the kept draft', async () => {
    const workflows = new WorkflowRepository(stack.db.models);
    const wf = await addWorkflow(stack.db, g, templateWorkflow('publish-here'));
    const runOf = async (id: string) => (await stack.db.models.webhookRuns.findById(id).lean<any>().exec())!;
    expect((await runOf(await ok(g.token, wf))).workflow_version).toBeNull();
    expect((await runOf(await ok(g.token, wf))).workflow_version).toBeNull();
    await workflows.publish(wf, '1.0.0');
    expect((await runOf(await ok(g.token, wf))).workflow_version).toBe('1.0.0');
    expect((await g.repo.getBudget(g.budgetId))!.workflow_versions[wf]).toBe('1.0.0');
  });

  it("the workspace's balance is read on every trigger: spent down in the window, the next run that needs it is refused (402)", async () => {
    const wf = await addWorkflow(stack.db, g, {
      name: 'asks',
      nodes: [{ id: 'ask', type: 'model', prompt: 'Say hi', max_tokens: 50 }],
      edges: [],
    });
    const ledger = new LedgerStore(stack.db.models);
    const account = `ws:${g.workspaceId}`;
    const unfunded = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'x' });
    expect([unfunded.status, unfunded.body.error]).toEqual([402, 'insufficient_credits']);
    await ledger.grant({ wallet: account, credits: 100, creditType: 'admin_grant' });
    await ok(g.token, wf);
    await ok(g.token, wf); // served from what was kept
    const { balance } = await ledger.balance(account);
    expect((await ledger.spend({ wallet: account, requestId: `drain-${Date.now()}`, credits: balance })).ok).toBe(true);
    const refused = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'x' });
    expect([refused.status, refused.body.error]).toEqual([402, 'insufficient_credits']);
  });
});
