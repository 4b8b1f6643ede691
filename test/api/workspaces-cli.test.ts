import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { WorkspaceRepository } from '../../shared/workspaces/repository';
import { adminJson } from '../support/admin-cli';
import { openTestDb } from '../support/db';

describe('workspace and workflow operator commands through the real CLI', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  const dir = mkdtempSync(path.join(tmpdir(), 'wf-cli-'));
  beforeAll(async () => {
    db = await openTestDb();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('sets up a workspace end to end: budget, key, workflow, group, credential, credits, approvals', async () => {
    const ws = await adminJson('workspace:create', '--name', 'Acme');
    expect(ws._id).toMatch(/^ws_/);
    const { budget, budget_key } = await adminJson(
      'budget:create',
      '--workspace',
      ws._id,
      '--name',
      'ops',
      '--daily',
      '500',
      '--total',
      '5000',
    );
    expect(budget).toMatchObject({ daily_credits: 500, total_credits: 5000, workflow_ids: [] });
    expect(budget_key).toMatch(/^bk_/);
    const key = await adminJson('apikey:create', '--workspace', ws._id, '--label', 'sched');
    expect(key.api_key).toMatch(/^wak_/);
    const repo = new WorkspaceRepository(db.models);
    expect(await repo.resolveBudgetBearer(key.api_key, budget_key)).toMatchObject({ budget: { _id: budget._id } });

    const file = path.join(dir, 'wf.json');
    writeFileSync(
      file,
      JSON.stringify({
        id: 'wf_cli_hello',
        name: 'Hello',
        description: 'greets',
        nodes: [{ id: 'a', type: 'template', template: 'Hello {{prompt}}' }],
        edges: [],
        status: 'published',
      }),
    );
    const wf = await adminJson('workflow:create', '--file', file, '--workspace', ws._id);
    expect(wf).toMatchObject({
      _id: 'wf_cli_hello',
      workspace_id: ws._id,
      status: 'published',
      versions: [{ version: '1.0.0' }],
    });
    expect((await adminJson('workflow:list')).map((w: any) => w._id)).toContain('wf_cli_hello');
    expect(await adminJson('budget:add-workflow', '--budget', budget._id, '--workflow', wf._id)).toMatchObject({
      workflow_ids: ['wf_cli_hello'],
    });

    const g = await adminJson('group:create', '--budget', budget._id, '--name', 'agents');
    expect(g).toMatchObject({
      group: { budget_id: budget._id, workspace_id: ws._id },
      token: expect.stringMatching(/^agt_/),
      webhook_secret: expect.stringMatching(/^whsec_/),
    });
    const t2 = await adminJson('group:token', '--group', g.group._id);
    expect(t2.token).toMatch(/^agt_/);
    expect((await repo.resolveGroupToken(t2.token))!.group._id).toBe(g.group._id);

    const cred = await adminJson(
      'credential:set',
      '--workspace',
      ws._id,
      '--name',
      'VENDOR_KEY',
      '--value',
      'never-printed',
    );
    expect(JSON.stringify(cred)).not.toContain('never-printed');
    expect(cred).toMatchObject({ name: 'VENDOR_KEY' });

    expect(
      await adminJson('credits:grant', '--workspace', ws._id, '--credits', '1000', '--id', 'ws-grant-1'),
    ).toMatchObject({ balance_after: 1000, replayed: false });
    expect((await new LedgerStore(db.models).balance(`ws:${ws._id}`)).balance).toBe(1000);

    const apr = await repo.openApproval({
      kind: 'add_workflow',
      workspaceId: ws._id,
      budgetId: budget._id,
      workflowId: 'wf_other',
      reason: 'not on budget',
    });
    expect((await adminJson('approval:list', '--status', 'open')).map((a: any) => a._id)).toEqual([apr._id]);
    expect(await adminJson('approval:approve', '--id', apr._id)).toMatchObject({
      status: 'approved',
      approved_by: 'operator_cli',
    });
    expect(await repo.isWorkflowOnBudget(budget._id, 'wf_other')).toBe(true);
  }, 240_000);

  it('refuses an invalid definition listing the problem paths, and bad flag combinations', async () => {
    const file = path.join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'Bad',
        nodes: [{ id: 'a', type: 'template', template: 'x' }],
        edges: [{ from: 'a', to: 'b' }],
      }),
    );
    await expect(adminJson('workflow:create', '--file', file)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('edges[0].to: no node "b"'),
    });
    await expect(adminJson('credits:grant', '--credits', '5')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('exactly one of --wallet or --workspace'),
    });
    await expect(adminJson('credits:grant', '--workspace', 'ws_missing', '--credits', '5')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no such workspace'),
    });
  }, 240_000);
});
