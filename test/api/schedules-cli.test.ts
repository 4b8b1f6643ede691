import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminJson } from '../support/admin-cli';
import { scheduleBearer, schedulesApi } from '../support/schedules';
import { startTestStack, TestStack } from '../support/stack';

describe('schedule operator commands through the real CLI', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('creates, lists, pauses, resumes and deletes a schedule an agent can claim with the printed keys', async () => {
    const ws = await adminJson('workspace:create', '--name', 'cli-sched');
    const { budget, budget_key } = await adminJson('budget:create', '--workspace', ws._id, '--name', 'nightly');
    const { api_key } = await adminJson('apikey:create', '--workspace', ws._id, '--label', 'scheduler');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wf-')), 'wf.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ name: 'report', nodes: [{ id: 'a', type: 'template', template: 'Hi {{prompt}}' }], edges: [] }),
    );
    const wf = await adminJson('workflow:create', '--file', file, '--workspace', ws._id);

    await expect(
      adminJson(
        'schedule:create',
        '--budget',
        budget._id,
        '--workflow',
        wf._id,
        '--every',
        '15m',
        '--tz',
        'Europe/Berlin',
      ),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('budget:add-workflow') });
    await adminJson('budget:add-workflow', '--budget', budget._id, '--workflow', wf._id);
    await expect(
      adminJson(
        'schedule:create',
        '--budget',
        budget._id,
        '--workflow',
        wf._id,
        '--cron',
        '0 0 9 * * *',
        '--tz',
        'Europe/Berlin',
      ),
    ).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('five fields') });
    const created = await adminJson(
      'schedule:create',
      '--budget',
      budget._id,
      '--workflow',
      wf._id,
      '--every',
      '15m',
      '--tz',
      'Europe/Berlin',
    );
    expect(created).toMatchObject({
      budget_id: budget._id,
      workflow_id: wf._id,
      every_seconds: 900,
      timezone: 'Europe/Berlin',
      paused: false,
      last_run_at: null,
      claim: null,
    });
    const cron = await adminJson(
      'schedule:create',
      '--budget',
      budget._id,
      '--workflow',
      wf._id,
      '--cron',
      '30 2 * * *',
      '--tz',
      'America/New_York',
    );
    expect(cron).toMatchObject({ cron: '30 2 * * *', every_seconds: null });

    const api = schedulesApi(stack.server.mainUrl);
    const auth = scheduleBearer(api_key, budget_key);
    const claimed = await api('POST', '/claim', auth, { schedule_id: created.schedule_id });
    expect(claimed.status).toBe(200);
    const listed = await adminJson('schedule:list', '--budget', budget._id);
    expect(listed.map((s: any) => s.schedule_id)).toEqual([created.schedule_id, cron.schedule_id]);
    expect(listed[0].claim).toMatchObject({ claim_token: claimed.body.data.claim_token });

    const paused = await adminJson('schedule:pause', '--schedule', cron.schedule_id);
    expect(paused.paused).toBe(true);
    const resumed = await adminJson('schedule:resume', '--schedule', cron.schedule_id);
    expect(resumed.paused).toBe(false);
    expect(Date.parse(resumed.next_due_at)).toBeGreaterThan(Date.now());

    expect(await adminJson('schedule:delete', '--schedule', created.schedule_id)).toEqual({ deleted: true });
    expect(
      (
        await api('POST', `/${created.schedule_id}/release`, auth, {
          due_at: claimed.body.data.due_at,
          claim_token: claimed.body.data.claim_token,
        })
      ).status,
    ).toBe(404);
    expect((await adminJson('schedule:list', '--workspace', ws._id)).map((s: any) => s.schedule_id)).toEqual([
      cron.schedule_id,
    ]);
  }, 300_000);

  it('pausing takes a due schedule out of the queue; resuming does not replay the paused period', async () => {
    const ws = await adminJson('workspace:create', '--name', 'cli-pause');
    const { budget, budget_key } = await adminJson('budget:create', '--workspace', ws._id, '--name', 'b');
    const { api_key } = await adminJson('apikey:create', '--workspace', ws._id);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wf-')), 'wf.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ name: 'p', nodes: [{ id: 'a', type: 'template', template: 'x' }], edges: [] }),
    );
    const wf = await adminJson('workflow:create', '--file', file, '--workspace', ws._id);
    await adminJson('budget:add-workflow', '--budget', budget._id, '--workflow', wf._id);
    const start = new Date(Date.now() - 3 * 3600_000).toISOString();
    const s = await adminJson(
      'schedule:create',
      '--budget',
      budget._id,
      '--workflow',
      wf._id,
      '--every',
      '1h',
      '--tz',
      'UTC',
      '--start',
      start,
    );
    const api = schedulesApi(stack.server.mainUrl);
    const auth = scheduleBearer(api_key, budget_key);
    expect((await api('GET', '/due', auth)).body.data.occurrences[0]).toMatchObject({
      schedule_id: s.schedule_id,
      skipped_occurrences: 3,
    });
    await adminJson('schedule:pause', '--schedule', s.schedule_id);
    expect((await api('GET', '/due', auth)).body.data.occurrences).toEqual([]);
    const refused = await api('POST', '/claim', auth, { schedule_id: s.schedule_id });
    expect(refused.body).toMatchObject({ error: 'occurrence_not_due', details: { paused: true } });
    const resumed = await adminJson('schedule:resume', '--schedule', s.schedule_id);
    expect(Date.parse(resumed.next_due_at)).toBeGreaterThan(Date.now());
    expect((await api('GET', '/due', auth)).body.data.occurrences).toEqual([]);
  }, 300_000);

  it('schedule:reindex counts open and held occurrences; a schedule from before the due queue is due from its own document', async () => {
    const ws = await adminJson('workspace:create', '--name', 'cli-reindex');
    const { budget, budget_key } = await adminJson('budget:create', '--workspace', ws._id, '--name', 'b');
    const { api_key } = await adminJson('apikey:create', '--workspace', ws._id);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wf-')), 'wf.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ name: 'r', nodes: [{ id: 'a', type: 'template', template: 'x' }], edges: [] }),
    );
    const wf = await adminJson('workflow:create', '--file', file, '--workspace', ws._id);
    await adminJson('budget:add-workflow', '--budget', budget._id, '--workflow', wf._id);
    const start = new Date(Date.now() - 30 * 60_000).toISOString();
    const lost = await adminJson(
      'schedule:create',
      '--budget',
      budget._id,
      '--workflow',
      wf._id,
      '--every',
      '1h',
      '--tz',
      'UTC',
      '--start',
      start,
    );
    const held = await adminJson(
      'schedule:create',
      '--budget',
      budget._id,
      '--workflow',
      wf._id,
      '--every',
      '1h',
      '--tz',
      'UTC',
      '--start',
      start,
    );
    const api = schedulesApi(stack.server.mainUrl);
    const auth = scheduleBearer(api_key, budget_key);
    expect((await api('POST', '/claim', auth, { schedule_id: held.schedule_id })).status).toBe(200);
    // No queue entry to lose any more: `lost` (as if created before the due queue) is due as it is.
    expect((await api('GET', '/due', auth)).body.data.occurrences.map((o: any) => o.schedule_id)).toEqual([
      lost.schedule_id,
    ]);
    expect(await adminJson('schedule:reindex', '--budget', budget._id)).toEqual({ queued: 1, held: 1 });
    expect((await api('GET', '/due', auth)).body.data.occurrences.map((o: any) => o.schedule_id)).toEqual([
      lost.schedule_id,
    ]);
  }, 300_000);
});
