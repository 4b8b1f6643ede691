import { LedgerStore } from '../../shared/credits/ledger-store';
import { PLATFORM_ACCOUNT } from '../../shared/jobs/rules';
import { TestAgent } from '../support/agent';
import { http } from '../support/http';
import { createJob, until } from '../support/jobs';
import { startTestStack, TestStack } from '../support/stack';

const greet = { id: 'greet', type: 'template', template: 'Hello {{prompt}}' };
const check = { id: 'check', type: 'condition', input: '{{nodes.greet.output}}', operator: 'contains', value: 'hello' };
const yes = { id: 'yes', type: 'template', template: 'said hello: {{nodes.greet.output}}' };
const graph = {
  nodes: [greet, check, yes],
  edges: [
    { from: 'greet', to: 'check' },
    { from: 'check', to: 'yes', when: true },
  ],
};

describe('job workflows: create, update, publish by the reserving wallet, then complete and get paid', () => {
  let stack: TestStack;
  let ledger: LedgerStore;
  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    ledger = new LedgerStore(stack.db.models);
    await ledger.grant({
      wallet: PLATFORM_ACCOUNT,
      grantId: 'job-workflows-fund',
      credits: 10_000,
      creditType: 'admin_grant',
    });
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function agent(): Promise<TestAgent> {
    const a = new TestAgent(stack.server.mainUrl);
    await a.startSession();
    return a;
  }
  const workflowJob = () =>
    createJob(stack.db.models, {
      kind: 'workflow_creation',
      title: 'Build a greeting workflow',
      reward_credits: 120,
      target_url: null,
      platforms: [],
    });
  const reserve = (a: TestAgent, jobId: string) =>
    a.call(`/api/external/jobs/${jobId}/reserve`, 'job_reserve', {}, jobId);
  const create = (a: TestAgent, jobId: string, body: Record<string, unknown>) =>
    a.call(`/api/external/jobs/${jobId}/workflow/create`, 'job_workflow_create', body, jobId);
  async function update(a: TestAgent, jobId: string, workflowId: string, body: Record<string, unknown>) {
    const env = await a.envelope('job_workflow_update', body, `${jobId}/${workflowId}`);
    return http('PUT', `${stack.server.mainUrl}/api/external/jobs/${jobId}/workflow/${workflowId}`, {
      body: { ...body, ...env },
    });
  }
  const publish = (a: TestAgent, jobId: string, workflowId: string, body: Record<string, unknown> = {}) =>
    a.call(
      `/api/external/jobs/${jobId}/workflow/${workflowId}/publish`,
      'job_workflow_publish',
      body,
      `${jobId}/${workflowId}`,
    );
  const status = (a: TestAgent, jobId: string) => a.call(`/api/external/jobs/${jobId}/status`, 'job_status', {}, jobId);

  it('reserve → create → update → publish (semver per bump) → complete with workflow_id → verification passes → one reward', async () => {
    const job = await workflowJob();
    const a = await agent();
    expect((await reserve(a, job._id)).status).toBe(200);

    const created = await create(a, job._id, {
      name: 'Greeter',
      description: 'says hello',
      time_saved_minutes: 5,
      categories: ['Writing'],
      nodes: [greet],
      edges: [],
    });
    expect(created.status).toBe(200);
    const wf = created.body.data;
    expect(wf).toMatchObject({
      job_id: job._id,
      owner_wallet: a.wallet,
      name: 'Greeter',
      status: 'draft',
      latest_version: null,
      versions: [],
      categories: ['writing'],
      time_saved_minutes: 5,
    });
    expect(wf.workflow_id).toMatch(/^wf_/);

    const edited = await update(a, job._id, wf.workflow_id, { ...graph, mcp_server_name: 'greeter-mcp' });
    expect(edited.status).toBe(200);
    expect(edited.body.data.nodes.map((n: { id: string }) => n.id)).toEqual(['greet', 'check', 'yes']);
    expect(edited.body.data.mcp_server_name).toBe('greeter-mcp');

    const first = await publish(a, job._id, wf.workflow_id);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ status: 'published', published_version: '1.0.0', latest_version: '1.0.0' });
    const versions = [];
    for (const bump of [undefined, 'minor', 'patch', 'major']) {
      const r = await publish(a, job._id, wf.workflow_id, bump ? { bump } : {});
      expect(r.status).toBe(200);
      versions.push(r.body.data.published_version);
    }
    expect(versions).toEqual(['1.0.1', '1.1.0', '1.1.1', '2.0.0']);
    const badBump = await publish(a, job._id, wf.workflow_id, { bump: 'huge' });
    expect(badBump.status).toBe(422);
    expect(badBump.body.detail[0].loc).toEqual(['body', 'bump']);

    const done = await a.call(
      `/api/external/jobs/${job._id}/complete`,
      'job_complete',
      { proof_text: 'built and published', workflow_id: wf.workflow_id },
      job._id,
    );
    expect(done.status).toBe(200);
    const paid = await until(
      () => status(a, job._id),
      (s) => s.body.data.completion?.status === 'paid',
    );
    const c = paid.body.data.completion;
    expect(c.verification.steps).toContainEqual(
      expect.objectContaining({ name: 'workflow_published_and_valid', status: 'passed' }),
    );
    expect(c.payment).toMatchObject({ status: 'paid', credits: 120 });
    const grants = (await ledger.history(a.wallet, 20)).grants.filter((g) => g.credit_type === 'job_reward');
    expect(grants).toHaveLength(1);
    expect((await ledger.balance(a.wallet)).balance).toBe(120);

    // The reservation is completed: the workflow can no longer be changed through the job.
    const late = await update(a, job._id, wf.workflow_id, { name: 'changed after the fact' });
    expect([late.status, late.body.error_code]).toEqual([403, 'reservation_required']);
  });

  it('a wallet cannot farm an auto workflow_creation job by completing a new reservation with the workflow it published under an earlier one', async () => {
    const job = await createJob(stack.db.models, {
      kind: 'workflow_creation',
      title: 'Build twice',
      reward_credits: 120,
      target_url: null,
      platforms: [],
      max_completions_per_wallet: 3,
    });
    const a = await agent();
    expect((await reserve(a, job._id)).status).toBe(200);
    const wf = (await create(a, job._id, { name: 'Once', nodes: [greet], edges: [] })).body.data;
    expect((await publish(a, job._id, wf.workflow_id)).status).toBe(200);
    const complete = () =>
      a.call(
        `/api/external/jobs/${job._id}/complete`,
        'job_complete',
        { proof_text: 'built', workflow_id: wf.workflow_id },
        job._id,
      );
    expect((await complete()).status).toBe(200);
    await until(
      () => status(a, job._id),
      (s) => s.body.data.completion?.status === 'paid',
    );

    // Second reservation, same (published, valid, own) workflow: the service has no record of it being made under this one.
    expect((await reserve(a, job._id)).status).toBe(200);
    expect((await complete()).status).toBe(200);
    const rejected = await until(
      () => status(a, job._id),
      (s) => s.body.data.completion?.status === 'rejected',
    );
    expect(rejected.body.data.completion.verification.steps).toContainEqual(
      expect.objectContaining({
        name: 'workflow_published_and_valid',
        status: 'failed',
        detail: expect.stringContaining('another reservation'),
      }),
    );
    expect((await ledger.balance(a.wallet)).balance).toBe(120);
  });

  it('accepts the X-Job-Workflow-Token instead of a signature, and refuses an altered or foreign token', async () => {
    const job = await workflowJob();
    const other = await workflowJob();
    const a = await agent();
    const r = await reserve(a, job._id);
    const token = r.headers.get('x-job-workflow-token')!;
    expect(token).toBeTruthy();
    const url = `${stack.server.mainUrl}/api/external/jobs/${job._id}/workflow/create`;
    const made = await http('POST', url, {
      body: { name: 'By token', ...graph },
      headers: { 'X-Job-Workflow-Token': token },
    });
    expect(made.status).toBe(200);
    expect(made.body.data.owner_wallet).toBe(a.wallet);
    const id = made.body.data.workflow_id;
    const put = await http('PUT', `${stack.server.mainUrl}/api/external/jobs/${job._id}/workflow/${id}`, {
      body: { description: 'edited by token' },
      headers: { 'X-Job-Workflow-Token': token },
    });
    expect([put.status, put.body.data.description]).toEqual([200, 'edited by token']);
    const pub = await http('POST', `${stack.server.mainUrl}/api/external/jobs/${job._id}/workflow/${id}/publish`, {
      body: { bump: 'minor' },
      headers: { 'X-Job-Workflow-Token': token },
    });
    expect([pub.status, pub.body.data.published_version]).toEqual([200, '1.0.0']);

    const altered = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA');
    const bad = await http('POST', url, { body: { name: 'x' }, headers: { 'X-Job-Workflow-Token': altered } });
    expect([bad.status, bad.body.error_code]).toEqual([401, 'job_workflow_token_invalid']);
    const foreign = await http('POST', `${stack.server.mainUrl}/api/external/jobs/${other._id}/workflow/create`, {
      body: { name: 'x' },
      headers: { 'X-Job-Workflow-Token': token },
    });
    expect([foreign.status, foreign.body.error_code]).toEqual([401, 'job_workflow_token_invalid']);
    const none = await http('POST', url, { body: { name: 'x' } });
    expect(none.status).toBe(422);
  });

  it('validates nodes and edges with the path of the bad element (422), and publish refuses a draft that fails validation', async () => {
    const job = await workflowJob();
    const a = await agent();
    await reserve(a, job._id);
    const unknownType = await create(a, job._id, {
      name: 'bad',
      nodes: [greet, { id: 'x', type: 'teleport' }],
      edges: [],
    });
    expect(unknownType.status).toBe(422);
    expect(unknownType.body.detail).toContainEqual(
      expect.objectContaining({ loc: ['body', 'nodes', '1', 'type'], type: 'workflow.unknown_node_type' }),
    );
    const dangling = await create(a, job._id, {
      name: 'bad',
      nodes: [greet],
      edges: [{ from: 'greet', to: 'nowhere' }],
    });
    expect(dangling.body.detail).toContainEqual(
      expect.objectContaining({ loc: ['body', 'edges', '0', 'to'], type: 'workflow.dangling_edge' }),
    );
    const cycle = await create(a, job._id, {
      name: 'bad',
      nodes: [greet, { ...yes, template: 'x' }],
      edges: [
        { from: 'greet', to: 'yes' },
        { from: 'yes', to: 'greet' },
      ],
    });
    expect(cycle.status).toBe(422);
    expect(cycle.body.detail[0].type).toBe('workflow.cycle');
    expect(cycle.body.detail[0].loc[1]).toBe('edges');

    const empty = await create(a, job._id, { name: 'empty draft' });
    expect(empty.status).toBe(200);
    const refused = await publish(a, job._id, empty.body.data.workflow_id);
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['workflow', 'nodes']);
    const versions = await stack.db.models.workflowVersions.countDocuments({
      workflow_id: empty.body.data.workflow_id,
    });
    expect(versions).toBe(0);
  });

  it('refuses a wallet without the reservation (403) and hides another wallet’s workflow (404); nothing changes', async () => {
    const job = await workflowJob();
    const owner = await agent();
    const stranger = await agent();
    await reserve(owner, job._id);
    const made = await create(owner, job._id, { name: 'mine', ...graph });
    const id = made.body.data.workflow_id;

    const noReservation = await create(stranger, job._id, { name: 'intruder' });
    expect([noReservation.status, noReservation.body.error_code]).toEqual([403, 'reservation_required']);
    expect(noReservation.body).toHaveProperty('request_id');

    await reserve(stranger, job._id);
    const foreignEdit = await update(stranger, job._id, id, { name: 'hijacked' });
    expect([foreignEdit.status, foreignEdit.body.error_code]).toEqual([404, 'workflow_not_found']);
    const foreignPublish = await publish(stranger, job._id, id);
    expect([foreignPublish.status, foreignPublish.body.error_code]).toEqual([404, 'workflow_not_found']);
    const doc = await stack.db.models.workflowDefinitions.findById(id).lean();
    expect(doc?.name).toBe('mine');
    expect(doc?.status).toBe('draft');

    const social = await createJob(stack.db.models);
    await reserve(owner, social._id);
    const wrongKind = await create(owner, social._id, { name: 'x' });
    expect([wrongKind.status, wrongKind.body.error_code]).toEqual([409, 'not_a_workflow_job']);
  });

  it('fails verification (nothing paid) when the completion names an unpublished or foreign workflow', async () => {
    const job = await workflowJob();
    const a = await agent();
    const b = await agent();
    await reserve(a, job._id);
    await reserve(b, job._id);
    const draft = await create(a, job._id, { name: 'never published', ...graph });
    const theirs = await create(b, job._id, { name: 'b’s', ...graph });
    await publish(b, job._id, theirs.body.data.workflow_id);

    await a.call(
      `/api/external/jobs/${job._id}/complete`,
      'job_complete',
      { proof_text: 'done', workflow_id: draft.body.data.workflow_id },
      job._id,
    );
    const rejected = await until(
      () => status(a, job._id),
      (s) => s.body.data.completion?.status === 'rejected',
    );
    expect(rejected.body.data.completion.verification.steps).toContainEqual(
      expect.objectContaining({ name: 'workflow_published_and_valid', status: 'failed' }),
    );

    const c = await createJob(stack.db.models, {
      kind: 'workflow_creation',
      reward_credits: 10,
      target_url: null,
      platforms: [],
    });
    await reserve(a, c._id);
    await a.call(
      `/api/external/jobs/${c._id}/complete`,
      'job_complete',
      { proof_text: 'claiming b’s work', workflow_id: theirs.body.data.workflow_id },
      c._id,
    );
    const stolen = await until(
      () => status(a, c._id),
      (s) => s.body.data.completion?.status === 'rejected',
    );
    expect(
      stolen.body.data.completion.verification.steps.find(
        (s: { name: string }) => s.name === 'workflow_published_and_valid',
      ).detail,
    ).toContain('another job or wallet');
    expect((await ledger.balance(a.wallet)).balance).toBe(0);
  });
});
