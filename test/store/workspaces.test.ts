import { MAX_VERSIONS_PER_WORKFLOW, WorkflowRepository } from '../../shared/workflows/repository';
import { WorkspaceRepository } from '../../shared/workspaces/repository';
import { openTestDb } from '../support/db';

const KEY = Buffer.alloc(32, 3);
const graph = { nodes: [{ id: 'a', type: 'template', template: 'Hello {{prompt}}' }], edges: [] };

describe('workspaces, budgets, groups, credentials and approvals on the real store', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let repo: WorkspaceRepository;
  let workflows: WorkflowRepository;
  beforeAll(async () => {
    db = await openTestDb();
    repo = new WorkspaceRepository(db.models, KEY);
    workflows = new WorkflowRepository(db.models);
  });
  afterAll(async () => {
    await db.drop();
  });

  it('budget keys and API keys: shown once, stored as sha256, resolved only within one workspace', async () => {
    const ws = await repo.createWorkspace({ name: 'Acme' });
    const other = await repo.createWorkspace({ name: 'Other' });
    expect(ws._id).toMatch(/^ws_[0-9a-f]{16}$/);
    const { budget, budgetKey } = await repo.createBudget({
      workspaceId: ws._id,
      name: 'ops',
      dailyCredits: 100,
      totalCredits: null,
    });
    expect(budget).toMatchObject({ workspace_id: ws._id, daily_credits: 100, total_credits: null, workflow_ids: [] });
    expect(budgetKey).toMatch(/^bk_[A-Za-z0-9_-]{43}$/);
    const { apiKey } = await repo.createApiKey({ workspaceId: ws._id, label: 'ci' });
    const { apiKey: otherKey, apiKeyId: otherKeyId } = await repo.createApiKey({ workspaceId: other._id });
    expect(apiKey).toMatch(/^wak_/);

    const raw =
      JSON.stringify(await db.connection.db!.collection('budgets').find().toArray()) +
      JSON.stringify(await db.connection.db!.collection('workspace_api_keys').find().toArray());
    expect(raw).not.toContain(budgetKey);
    expect(raw).not.toContain(apiKey);

    expect(await repo.resolveBudgetBearer(apiKey, budgetKey)).toMatchObject({
      workspace: { _id: ws._id },
      budget: { _id: budget._id },
    });
    expect(await repo.resolveBudgetBearer(otherKey, budgetKey)).toBeNull();
    expect(
      await repo.resolveBudgetBearer(apiKey, budgetKey.slice(0, -1) + (budgetKey.endsWith('A') ? 'B' : 'A')),
    ).toBeNull();
    expect(await repo.revokeApiKey(otherKeyId)).toBe(true);
    await expect(repo.createBudget({ workspaceId: 'ws_nope', name: 'x' })).rejects.toMatchObject({
      code: 'workspace_not_found',
    });
  });

  it('lists a workflow on a budget once under 10 concurrent adds', async () => {
    const ws = await repo.createWorkspace({ name: 'W' });
    const { budget } = await repo.createBudget({ workspaceId: ws._id, name: 'b' });
    const wf = await workflows.create({ name: 'hello', ...graph }, { workspaceId: ws._id });
    await Promise.all(Array.from({ length: 10 }, () => repo.addWorkflowToBudget(budget._id, wf._id)));
    expect((await repo.getBudget(budget._id))!.workflow_ids).toEqual([wf._id]);
    expect(await repo.isWorkflowOnBudget(budget._id, wf._id)).toBe(true);
    expect(await repo.isWorkflowOnBudget(budget._id, 'wf_other')).toBe(false);
  });

  it('pins an unpinned link to one version under 30 concurrent first runs, every time', async () => {
    // Each racer brings a different "latest" (a publish landing between first runs): a pin set by a
    // filtered update on the link (FerretDB applies those as a read then a write) let several racers
    // each win and run their own version; the pin's insert decides now.
    const ws = await repo.createWorkspace({ name: 'P' });
    const { budget } = await repo.createBudget({ workspaceId: ws._id, name: 'b' });
    for (let round = 0; round < 5; round++) {
      const wfId = `wf_pin_${round}`;
      await repo.addWorkflowToBudget(budget._id, wfId);
      const versions = Array.from({ length: 30 }, (_, i) => `1.${i}.0`);
      const pinned = await Promise.all(versions.map((v) => repo.pinBudgetWorkflow(budget._id, wfId, v)));
      expect(new Set(pinned).size).toBe(1);
      expect((await repo.getBudget(budget._id))!.workflow_versions[wfId]).toBe(pinned[0]);
      expect(await repo.pinBudgetWorkflow(budget._id, wfId, '9.0.0')).toBe(pinned[0]);
    }
    // An approval moves the link forward from its pin, and a later first-run pin does not undo it.
    await repo.addWorkflowToBudget(budget._id, 'wf_pin_0', new Date(), '5.0.0');
    expect(await repo.pinBudgetWorkflow(budget._id, 'wf_pin_0', '1.0.0')).toBe('5.0.0');
    expect((await repo.getBudget(budget._id))!.workflow_versions.wf_pin_0).toBe('5.0.0');
    // A link made with a version is pinned already: nothing to decide.
    await repo.addWorkflowToBudget(budget._id, 'wf_pin_fixed', new Date(), '2.0.0');
    expect(await repo.pinBudgetWorkflow(budget._id, 'wf_pin_fixed', '3.0.0')).toBe('2.0.0');
  });

  it('agent groups: agt_ tokens resolve to group, budget and workspace; revoked tokens do not; the webhook secret is sealed', async () => {
    const ws = await repo.createWorkspace({ name: 'G' });
    const { budget } = await repo.createBudget({ workspaceId: ws._id, name: 'b' });
    const { group, token, webhookSecret } = await repo.createGroup({ budgetId: budget._id, name: 'agents' });
    expect(token).toMatch(/^agt_[A-Za-z0-9_-]{43}$/);
    expect(webhookSecret).toMatch(/^whsec_/);
    const access = await repo.resolveGroupToken(token);
    expect(access).toMatchObject({
      group: { _id: group._id, budget_id: budget._id },
      budget: { _id: budget._id },
      workspace: { _id: ws._id },
    });
    expect(access!.group).not.toHaveProperty('webhook_secret_enc');
    expect(await repo.groupWebhookSecret(group._id)).toBe(webhookSecret);
    const stored = await db.connection.db!.collection('agent_groups').findOne({ _id: group._id as never });
    expect(JSON.stringify(stored)).not.toContain(webhookSecret.slice(6));

    const second = await repo.issueGroupToken(group._id, { label: 'two' });
    expect(await repo.revokeGroupToken(second.tokenId)).toBe(true);
    expect(await repo.resolveGroupToken(second.token)).toBeNull();
    expect(await repo.resolveGroupToken('agt_' + 'x'.repeat(43))).toBeNull();
    expect(await repo.resolveGroupToken('not-a-token')).toBeNull();
  });

  it('credentials are encrypted at rest and read back only through the key', async () => {
    const ws = await repo.createWorkspace({ name: 'C' });
    await repo.setCredential({ workspaceId: ws._id, name: 'VENDOR_KEY', value: 'super-secret-1' });
    await repo.setCredential({ workspaceId: ws._id, name: 'VENDOR_KEY', value: 'super-secret-2' });
    const raw = JSON.stringify(
      await db.connection.db!.collection('credentials').find({ workspace_id: ws._id }).toArray(),
    );
    expect(raw).not.toContain('super-secret');
    expect(await repo.credentialNames(ws._id)).toEqual(['VENDOR_KEY']);
    expect(await repo.missingCredentials(ws._id, ['VENDOR_KEY', 'OTHER'])).toEqual(['OTHER']);
    expect(await repo.credentialValues(ws._id, ['VENDOR_KEY'])).toEqual({ VENDOR_KEY: 'super-secret-2' });
    await expect(
      new WorkspaceRepository(db.models, Buffer.alloc(32, 9)).credentialValues(ws._id, ['VENDOR_KEY']),
    ).rejects.toThrow();
    await expect(
      new WorkspaceRepository(db.models).setCredential({ workspaceId: ws._id, name: 'X', value: 'v' }),
    ).rejects.toMatchObject({ code: 'credentials_key_missing' });
  });

  it('approval requests: one open per target under concurrency; approving applies it and frees the slot', async () => {
    const ws = await repo.createWorkspace({ name: 'A' });
    const { budget } = await repo.createBudget({ workspaceId: ws._id, name: 'b' });
    const wf = await workflows.create({ name: 'x', ...graph }, { workspaceId: ws._id });
    const opened = await Promise.all(
      Array.from({ length: 8 }, () =>
        repo.openApproval({
          kind: 'add_workflow',
          workspaceId: ws._id,
          budgetId: budget._id,
          workflowId: wf._id,
          reason: 'not on budget',
        }),
      ),
    );
    expect(new Set(opened.map((a) => a._id)).size).toBe(1);
    expect(await repo.listApprovals({ status: 'open', workspaceId: ws._id })).toHaveLength(1);
    const approved = await repo.approve(opened[0]._id, { by: 'ops' });
    expect(approved).toMatchObject({ status: 'approved', approved_by: 'ops' });
    expect(await repo.isWorkflowOnBudget(budget._id, wf._id)).toBe(true);
    expect(await repo.approve(opened[0]._id, { by: 'ops' })).toMatchObject({ status: 'approved' });

    const cred = await repo.openApproval({
      kind: 'credential',
      workspaceId: ws._id,
      workflowId: wf._id,
      credentialName: 'TOKEN',
      reason: 'missing',
    });
    await expect(repo.approve(cred._id, { by: 'ops' })).rejects.toMatchObject({ code: 'credential_not_set' });
    expect(await repo.approve(cred._id, { by: 'ops', credentialValue: 'tok' })).toMatchObject({ status: 'approved' });
    expect(await repo.credentialValues(ws._id, ['TOKEN'])).toEqual({ TOKEN: 'tok' });
    const again = await repo.openApproval({
      kind: 'credential',
      workspaceId: ws._id,
      workflowId: wf._id,
      credentialName: 'TOKEN',
      reason: 'missing',
    });
    expect(again._id).not.toBe(cred._id);
    await expect(repo.approve('apr_nope', { by: 'x' })).rejects.toMatchObject({ code: 'approval_not_found' });
  });
});

describe('workflow definitions on the real store', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let workflows: WorkflowRepository;
  beforeAll(async () => {
    db = await openTestDb();
    workflows = new WorkflowRepository(db.models);
  });
  afterAll(async () => {
    await db.drop();
  });

  it('stores free-form node objects safely (keys with $ and .) and hands them back as plain objects', async () => {
    const nodes = [
      {
        id: 'k',
        type: 'tool',
        product: 'demo',
        parameters: { 'a.b': '{{prompt}}', $where: 'x', nested: { 'x.y': [1, { $gt: 2 }] } },
      },
    ];
    const wf = await workflows.create({ name: 'odd keys', description: 'd', nodes, edges: [] });
    expect(wf).toMatchObject({
      _id: expect.stringMatching(/^wf_/),
      status: 'draft',
      nodes,
      edges: [],
      credentials: [],
      versions: [],
    });
    expect((await workflows.get(wf._id))!.nodes).toEqual(nodes);
  });

  it('refuses an invalid definition with every problem and its path', async () => {
    await expect(
      workflows.create({
        name: 'bad',
        nodes: [
          { id: 'a', type: 'nope' },
          { id: 'b', type: 'template', template: 'x' },
        ],
        edges: [{ from: 'b', to: 'zz' }],
      }),
    ).rejects.toMatchObject({
      code: 'invalid_workflow',
      details: {
        problems: [
          expect.objectContaining({ path: 'nodes[0].type', code: 'unknown_node_type' }),
          expect.objectContaining({ path: 'edges[0].to', code: 'dangling_edge' }),
        ],
      },
    });
  });

  it('publishes increasing semantic versions; runs take the latest published graph', async () => {
    const wf = await workflows.create({
      id: 'wf_versions',
      name: 'v',
      ...graph,
      status: 'published',
      version: '1.0.0',
    });
    expect(wf.status).toBe('published');
    await expect(workflows.create({ id: 'wf_versions', name: 'v', ...graph })).rejects.toMatchObject({
      code: 'workflow_exists',
    });
    await expect(workflows.publish(wf._id, '1.0.0')).rejects.toMatchObject({ code: 'version_not_newer' });
    await expect(workflows.publish(wf._id, '0.9.0')).rejects.toMatchObject({ code: 'version_not_newer' });
    await expect(workflows.publish(wf._id, '1.0')).rejects.toMatchObject({ code: 'invalid_version' });
    const racing = await Promise.allSettled([workflows.publish(wf._id, '1.10.0'), workflows.publish(wf._id, '1.10.0')]);
    expect(racing.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await workflows.get(wf._id))!.versions.map((v) => v.version)).toEqual(['1.0.0', '1.10.0']);
    expect(await workflows.runnable(wf._id)).toMatchObject({
      workflow_id: wf._id,
      version: '1.10.0',
      nodes: graph.nodes,
    });
    const list = await workflows.list();
    expect(list.find((w) => w._id === wf._id)).toMatchObject({ latest_version: '1.10.0', node_count: 1 });
    expect(await workflows.runnable('wf_none')).toBeNull();
  });

  it('runs the newest version after concurrent publishes, every time; versions from before order keys are read once and keyed', async () => {
    // Ten workflows, twelve racing publishes each, the newest at a different place each time: a pointer
    // moved by a filtered update (FerretDB applies those as a read then a write) lost the newest in
    // some of these; the version rows decide now.
    const older = ['1.2.0', '1.1.0', '1.4.0', '1.3.0', '1.5.0', '1.7.0', '1.6.0', '1.9.0', '1.8.0', '1.10.0', '1.11.0'];
    for (let round = 0; round < 10; round++) {
      const versions = [...older.slice(0, round), '2.0.0', ...older.slice(round)];
      const wf = await workflows.create({
        id: `wf_race_${round}`,
        name: 'p',
        ...graph,
        status: 'published',
        version: '1.0.0',
      });
      await Promise.allSettled(versions.map((v) => workflows.publish(wf._id, v)));
      expect((await workflows.get(wf._id))!.versions.map((v) => v.version)).toContain('2.0.0');
      expect(await workflows.runnable(wf._id)).toMatchObject({ version: '2.0.0' });
      expect((await workflows.latestPublished(wf._id))!.version).toBe('2.0.0');
      expect((await workflows.list()).find((w) => w._id === wf._id)).toMatchObject({ latest_version: '2.0.0' });
      await expect(workflows.publish(wf._id, '1.9.0')).rejects.toMatchObject({ code: 'version_not_newer' });
    }

    // Rows stored before order_key existed: the first read scans the workflow's versions and keys them.
    await workflows.create({ id: 'wf_legacy', name: 'l', ...graph, status: 'published', version: '3.1.0' });
    await workflows.publish('wf_legacy', '3.10.0');
    await workflows.publish('wf_legacy', '3.2.0').catch(() => undefined);
    await db.models.workflowVersions.updateMany({ workflow_id: 'wf_legacy' }, { $unset: { order_key: 1 } });
    expect(await workflows.list()).toEqual(
      expect.arrayContaining([expect.objectContaining({ _id: 'wf_legacy', latest_version: '3.10.0' })]),
    );
    expect(await workflows.runnable('wf_legacy')).toMatchObject({ version: '3.10.0' });
    const keyed = await db.models.workflowVersions
      .find({ workflow_id: 'wf_legacy' }, { order_key: 1 })
      .lean<{ order_key?: string }[]>()
      .exec();
    expect(keyed.map((r) => r.order_key)).toEqual(
      expect.arrayContaining(['000000003.000000010.000000000', '000000003.000000001.000000000']),
    );
    await workflows.publish('wf_legacy', '3.11.0');
    expect(await workflows.runnable('wf_legacy')).toMatchObject({ version: '3.11.0' });
    expect(Object.keys((await workflows.get('wf_legacy'))!)).not.toContain('latest_version');
  });

  it('keeps at most MAX_VERSIONS_PER_WORKFLOW published versions of one workflow', async () => {
    await workflows.create({ id: 'wf_many', name: 'm', ...graph, status: 'published', version: '0.0.1' });
    for (let v = 2; v <= MAX_VERSIONS_PER_WORKFLOW; v++) await workflows.publish('wf_many', `0.0.${v}`);
    await expect(workflows.publish('wf_many', '1.0.0')).rejects.toMatchObject({
      code: 'version_limit_reached',
      status: 409,
    });
    expect(await workflows.runnable('wf_many')).toMatchObject({ version: `0.0.${MAX_VERSIONS_PER_WORKFLOW}` });
  }, 120_000);
});
