import { RunRepository } from '../../shared/webhook-runs/index';
import type { WebhookRunDoc } from '../../shared/webhook-runs/models/webhook-run';
import { openTestDb } from '../support/db';
import { runDoc } from '../support/run-doc';

const HOUR = 3_600_000;
const now = new Date('2026-11-29T12:30:00.000Z');

/** Runs of one workspace at the given instants, workflows and groups in turn. */
function runs(ws: string, times: Date[], over: (i: number) => Partial<WebhookRunDoc> = () => ({})): WebhookRunDoc[] {
  return times.map((at, i) =>
    runDoc({
      _id: `run_${ws}_${String(i).padStart(4, '0')}`,
      workspace_id: ws,
      workflow_id: i % 2 ? 'wf_odd' : 'wf_even',
      group_id: i % 3 ? 'grp_a' : 'grp_b',
      status: i % 4 === 3 ? 'failed' : 'completed',
      created_at: at,
      ...over(i),
    }),
  );
}

/** Every page of a query, following the cursor, as ids. */
async function walk(repo: RunRepository, q: Parameters<RunRepository['byWorkspace']['page']>[0]) {
  const seen: string[] = [];
  let before = q.before;
  for (;;) {
    const page = await repo.byWorkspace.page({ ...q, before });
    seen.push(...page.runs.map((r) => r._id));
    expect(page.runs.length).toBeLessThanOrEqual(q.limit);
    if (!page.more) return seen;
    const last = page.runs.at(-1)!;
    before = { created_at: last.created_at, _id: last._id };
  }
}

const expected = (docs: WebhookRunDoc[], keep: (d: WebhookRunDoc) => boolean) =>
  docs
    .filter(keep)
    .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a._id < b._id ? 1 : -1))
    .map((d) => d._id);

describe("a workspace's runs read by bucket", () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let repo: RunRepository;
  let docs: WebhookRunDoc[];
  beforeAll(async () => {
    db = await openTestDb();
    repo = new RunRepository(db.models);
    // Three days with a gap, several runs sharing an instant, hours with one run and with many.
    const times: Date[] = [];
    for (let i = 0; i < 90; i++) times.push(new Date(now.getTime() - Math.floor(i / 3) * 17 * 60_000));
    for (let i = 0; i < 6; i++) times.push(new Date(now.getTime() - 3 * 24 * HOUR - i * HOUR));
    docs = runs('ws_a', times);
    await repo.importRuns(docs.slice(0, 50));
    for (const d of docs.slice(50)) await repo.insertRun(d);
    await repo.importRuns(runs('ws_b', [now, new Date(now.getTime() - HOUR)]));
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('pages every run of the workspace newest first, once each, across hours, days and a gap', async () => {
    expect(await walk(repo, { workspaceId: 'ws_a', limit: 7 })).toEqual(expected(docs, () => true));
  });

  it('pages a busy day an hour at a time, then the rest of it at once, the same runs in the same order', async () => {
    const times = Array.from(
      { length: 600 },
      (_, i) => new Date(now.getTime() - Math.floor(i / 30) * HOUR - (i % 30) * 1000),
    );
    const dense = runs('ws_dense', times);
    await repo.importRuns(dense);
    expect(await walk(repo, { workspaceId: 'ws_dense', limit: 40 })).toEqual(expected(dense, () => true));
    expect(await walk(repo, { workspaceId: 'ws_dense', status: 'failed', limit: 40 })).toEqual(
      expected(dense, (d) => d.status === 'failed'),
    );
  });

  it('narrows by status, workflow, group and time, alone and together', async () => {
    const from = new Date(now.getTime() - 10 * HOUR);
    const to = new Date(now.getTime() - 2 * HOUR);
    expect(await walk(repo, { workspaceId: 'ws_a', status: 'failed', limit: 4 })).toEqual(
      expected(docs, (d) => d.status === 'failed'),
    );
    expect(await walk(repo, { workspaceId: 'ws_a', workflowId: 'wf_odd', limit: 5 })).toEqual(
      expected(docs, (d) => d.workflow_id === 'wf_odd'),
    );
    expect(await walk(repo, { workspaceId: 'ws_a', groupId: 'grp_b', workflowId: 'wf_even', limit: 3 })).toEqual(
      expected(docs, (d) => d.group_id === 'grp_b' && d.workflow_id === 'wf_even'),
    );
    expect(await walk(repo, { workspaceId: 'ws_a', from, to, limit: 6 })).toEqual(
      expected(docs, (d) => d.created_at >= from && d.created_at < to),
    );
  });

  it("never lists another workspace's runs", async () => {
    const b = await walk(repo, { workspaceId: 'ws_b', limit: 10 });
    expect(b).toHaveLength(2);
    expect(b.every((id) => id.startsWith('run_ws_b_'))).toBe(true);
    expect(await walk(repo, { workspaceId: 'ws_none', limit: 10 })).toEqual([]);
  });

  it('counts runs per hour by status, keeping only the counts of hours that are over and ended', async () => {
    const since = new Date(now.getTime() - 24 * HOUR);
    const open = runDoc({
      _id: 'run_ws_a_open',
      workspace_id: 'ws_a',
      status: 'running',
      created_at: new Date(now.getTime() - 5 * HOUR),
    });
    await repo.insertRun(open);
    const counted = await repo.byWorkspace.hourCounts('ws_a', since, now);
    const all = [...docs, open].filter((d) => d.created_at >= new Date(Math.floor(since.getTime() / HOUR) * HOUR));
    const byHour = new Map<number, Record<string, number>>();
    for (const d of all) {
      const h = Math.floor(d.created_at.getTime() / HOUR) * HOUR;
      const c = byHour.get(h) ?? {};
      c[d.status] = (c[d.status] ?? 0) + 1;
      byHour.set(h, c);
    }
    expect(new Map(counted.map((h) => [h.at.getTime(), h.counts]))).toEqual(byHour);
    const kept = await db.models.runHourCounts.find({}).lean().exec();
    const keptHours = kept.filter((k) => /\|\d{4}-\d\d-\d\d$/.test(k.parent)).map((k) => k.at.getTime());
    // Not the current hour, not the hour that still has a running run; every other hour.
    const settled = [...byHour.keys()].filter(
      (h) => h + HOUR + 5 * 60_000 <= now.getTime() && h !== Math.floor(open.created_at.getTime() / HOUR) * HOUR,
    );
    expect(keptHours.sort()).toEqual(settled.sort());
    // Of the current hour (12:00 to now, 12:30), the ten minutes over by five: 12:00 and 12:10.
    const keptSlices = kept.filter((k) => k.parent === 'ws_a|2026-11-29T12').map((k) => k._id);
    expect(keptSlices.sort()).toEqual(['ws_a|2026-11-29T12:00', 'ws_a|2026-11-29T12:10']);
    // A second read answers the same from the kept counts.
    expect(await repo.byWorkspace.hourCounts('ws_a', since, now)).toEqual(counted);
  });

  it('finds the latest failed callbacks since a time, newest first', async () => {
    const failed = runs(
      'ws_c',
      [0, 1, 2, 3, 4].map((i) => new Date(now.getTime() - i * 20 * HOUR)),
      (i) => ({
        callback_status: i === 2 ? 'delivered' : 'failed',
      }),
    );
    await repo.importRuns(failed);
    const since = new Date(now.getTime() - 70 * HOUR);
    const got = await repo.byWorkspace.failedCallbacks('ws_c', since, 10);
    expect(got.map((r) => r._id)).toEqual(['run_ws_c_0000', 'run_ws_c_0001', 'run_ws_c_0003']);
    expect((await repo.byWorkspace.failedCallbacks('ws_c', since, 2)).map((r) => r._id)).toEqual([
      'run_ws_c_0000',
      'run_ws_c_0001',
    ]);
    // The callback's writer moves a run onto and off the list.
    const update = (status: 'failed' | 'delivered') => ({
      callback_status: status,
      callback_last_status: status === 'failed' ? 500 : 200,
      callback_last_error: null,
      callback_attempted_at: now,
      callback_attempts: 1,
    });
    const delivered = (await repo.get('run_ws_c_0002'))!.run;
    await repo.updateCallback(delivered, update('failed'), now);
    expect((await repo.byWorkspace.failedCallbacks('ws_c', since, 10)).map((r) => r._id)).toEqual([
      'run_ws_c_0000',
      'run_ws_c_0001',
      'run_ws_c_0002',
      'run_ws_c_0003',
    ]);
    await repo.updateCallback((await repo.get('run_ws_c_0000'))!.run, update('delivered'), now);
    expect((await repo.byWorkspace.failedCallbacks('ws_c', since, 10)).map((r) => r._id)).toEqual([
      'run_ws_c_0001',
      'run_ws_c_0002',
      'run_ws_c_0003',
    ]);
  });

  it('files runs stored without bucket keys once they have ended, and leaves open ones alone', async () => {
    const old = runs('ws_d', [now, new Date(now.getTime() - HOUR)]);
    const running = runDoc({ _id: 'run_ws_d_running', workspace_id: 'ws_d', status: 'running', created_at: now });
    await db.models.webhookRuns.collection.insertMany([...old, running] as never[]);
    expect(await walk(repo, { workspaceId: 'ws_d', limit: 10 })).toEqual([]);
    expect(await repo.fileUnfiled(500)).toBe(2);
    expect(await repo.fileUnfiled(500)).toBe(0);
    expect(await walk(repo, { workspaceId: 'ws_d', limit: 10 })).toEqual(expected(old, () => true));
  });
});
