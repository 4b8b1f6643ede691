import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OperatorKeyRepository } from '../../shared/console/index';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { RunRepository } from '../../shared/webhook-runs/index';
import { WorkspaceRepository } from '../../shared/workspaces/repository';
import { adminJson } from '../support/admin-cli';
import { openTestDb } from '../support/db';
import { runDoc } from '../support/run-doc';

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

  it("switches a budget's catalog tools on and off, refuses an unknown budget or both switches; revokes an API key", async () => {
    const ws = await adminJson('workspace:create', '--name', 'Switches');
    const { budget } = await adminJson('budget:create', '--workspace', ws._id, '--name', 'ops');
    const repo = new WorkspaceRepository(db.models);
    expect((await repo.getBudget(budget._id))!.catalog_tools).toBe(false);
    expect(await adminJson('budget:catalog-tools', '--budget', budget._id, '--on')).toEqual({
      budget_id: budget._id,
      catalog_tools: true,
    });
    expect((await repo.getBudget(budget._id))!.catalog_tools).toBe(true);
    expect(await adminJson('budget:catalog-tools', '--budget', budget._id, '--off')).toEqual({
      budget_id: budget._id,
      catalog_tools: false,
    });
    expect((await repo.getBudget(budget._id))!.catalog_tools).toBe(false);
    await expect(adminJson('budget:catalog-tools', '--budget', budget._id, '--on', '--off')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('exactly one of --on or --off'),
    });
    await expect(adminJson('budget:catalog-tools', '--budget', 'bud_0000000000000000', '--on')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no budget bud_0000000000000000'),
    });

    const key = await adminJson('apikey:create', '--workspace', ws._id);
    expect(await repo.resolveApiKey(key.api_key)).not.toBeNull();
    expect(await adminJson('apikey:revoke', '--key-id', key.api_key_id)).toEqual({ revoked: true });
    expect(await repo.resolveApiKey(key.api_key)).toBeNull();
  }, 240_000);

  it('mints, lists and revokes an operator key: the key is printed once and never listed', async () => {
    const minted = await adminJson('operator-key:create', '--label', 'night shift');
    expect(minted.operator_key).toMatch(/^opk_[A-Za-z0-9_-]{43}$/);
    const keys = new OperatorKeyRepository(db.models);
    expect(await keys.resolve(minted.operator_key)).toMatchObject({ key_id: minted.operator_key_id });
    const listed = await adminJson('operator-key:list');
    expect(listed).toContainEqual(expect.objectContaining({ key_id: minted.operator_key_id, label: 'night shift' }));
    expect(JSON.stringify(listed)).not.toContain(minted.operator_key);
    expect(await adminJson('operator-key:revoke', '--key-id', minted.operator_key_id)).toEqual({ revoked: true });
    expect(await keys.resolve(minted.operator_key)).toBeNull();
    await expect(adminJson('operator-key:revoke', '--key-id', 'opk_not_an_id')).rejects.toMatchObject({ code: 2 });
  }, 240_000);

  it('files the ended runs stored before the console read runs by bucket, and then finds none left', async () => {
    const at = new Date();
    const old = ['run_cli_old_1', 'run_cli_old_2'].map((id) =>
      runDoc({ _id: id, workspace_id: 'ws_cli_old', status: 'completed', created_at: at }),
    );
    await db.models.webhookRuns.collection.insertMany(old as never[]);
    const runs = new RunRepository(db.models);
    expect((await runs.byWorkspace.page({ workspaceId: 'ws_cli_old', limit: 10 })).runs).toEqual([]);
    expect(await adminJson('runs:file-for-console')).toEqual({ filed: 2 });
    expect(await adminJson('runs:file-for-console')).toEqual({ filed: 0 });
    const page = await runs.byWorkspace.page({ workspaceId: 'ws_cli_old', limit: 10 });
    expect(page.runs.map((r) => r._id).sort()).toEqual(['run_cli_old_1', 'run_cli_old_2']);
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
