import fs from 'node:fs';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { ScheduleService } from '../../api/services/schedules';
import { temporalTestServer } from '../../scripts/services/paths';
import { buildSchedule } from '../../shared/schedules/new-schedule';
import { ScheduleRepository } from '../../shared/schedules/repository';
import { temporal as proto } from '@temporalio/proto';
import { TYPE_BY_NAME, type TemporalHandle } from '../../temporal/connection';
import { ALL_SEARCH_ATTRIBUTES } from '../../temporal/search-attributes';
import { createScheduleLeaseActivities } from '../../temporal/schedule-lease/activities';
import { leaseHandle } from '../../temporal/schedule-lease/client';
import { SCHEDULE_LEASE_QUEUE } from '../../temporal/schedule-lease/config';
import { workflowBundle } from '../../workers/run-workers';
import { openTestDb } from '../support/db';
import { installTestRuntime } from '../support/runtime';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'histories', 'schedule-lease.json');
const BOUNDS = { minSeconds: 1, maxSeconds: 3600, defaultSeconds: 300 };
const BUDGET = 'bud_lease_test';

describe('schedule lease workflow on the time-skipping server, against the real store', () => {
  let env: TestWorkflowEnvironment;
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let repo: ScheduleRepository;
  let temporal: TemporalHandle;
  let bundle: Awaited<ReturnType<typeof workflowBundle>>;

  beforeAll(async () => {
    installTestRuntime();
    db = await openTestDb();
    repo = new ScheduleRepository(db.models);
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: temporalTestServer() } } });
    temporal = { client: env.client, connection: env.connection, namespace: env.namespace ?? 'default', prefix: '', queue: (q) => q, close: async () => undefined };
    // The time-skipping server has no listSearchAttributes; registering outright works.
    await env.connection.operatorService.addSearchAttributes({
      namespace: temporal.namespace,
      searchAttributes: Object.fromEntries(ALL_SEARCH_ATTRIBUTES.map((k) => [k.name, TYPE_BY_NAME[k.type]])),
    });
    bundle = await workflowBundle();
  });

  /**
   * Runs `body` with a lease worker polling. The server skips time only while a client waits on
   * a workflow result, so timers stand still otherwise.
   */
  async function withWorker(body: () => Promise<void>): Promise<void> {
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: SCHEDULE_LEASE_QUEUE,
      workflowBundle: bundle,
      activities: createScheduleLeaseActivities({ models: db.models }),
    });
    await worker.runUntil(body());
  }
  afterAll(async () => {
    await env?.teardown();
    await db?.drop();
  });

  /**
   * The API and Temporal must share a clock; here Temporal's is the time-skipping server's, which
   * runs ahead of the machine's after every skip. `serverClock()` follows it.
   */
  let offsetMs = 0;
  const serverClock = () => new Date(Date.now() + offsetMs);
  async function syncClock() {
    offsetMs = (await env.currentTimeMs()) - Date.now();
  }

  async function dueSchedule(minutesAgo: number) {
    await syncClock();
    const now = serverClock();
    const built = buildSchedule({ budgetId: BUDGET, workspaceId: 'ws_lease', workflowId: 'wf_lease', everySeconds: 3600, timezone: 'UTC', startAt: new Date(now.getTime() - minutesAgo * 60_000) }, now);
    if ('problem' in built) throw new Error(built.problem);
    return repo.create(built.schedule);
  }

  it('sleeps until lease_expires_at, then returns the occurrence to the due queue; the stale holder is fenced off', () => withWorker(async () => {
    const s = await dueSchedule(5);
    const service = new ScheduleService(repo, temporal, BOUNDS, serverClock);
    const a = await service.claim(BUDGET, { schedule_id: s._id, lease_seconds: 600 });
    expect((await service.due(BUDGET, { limit: 10 })).items).toHaveLength(0);

    // Time skips 10 minutes: the lease runs out with nobody releasing or advancing.
    const ended = await leaseHandle(temporal, a.claim._id).result();
    expect(ended).toEqual({ claimId: a.claim._id, ended: 'expired', signalled: false });
    await syncClock();
    expect((await repo.claimEnd(a.claim._id))?.kind).toBe('expired');
    const due = await service.due(BUDGET, { limit: 10 });
    expect(due.items.map((i) => i.schedule._id)).toEqual([s._id]);

    const history = await leaseHandle(temporal, a.claim._id).fetchHistory();
    if (!fs.existsSync(FIXTURE) || process.env.UPDATE_HISTORIES === '1') fs.writeFileSync(FIXTURE, JSON.stringify(history, null, 1));

    // A new holder claims it; the first holder's token no longer moves anything.
    const b = await service.claim(BUDGET, { schedule_id: s._id, lease_seconds: 600 });
    expect(b.claim.attempt).toBe(1);
    expect(b.claim.claim_token).not.toBe(a.claim.claim_token);
    const stale = { due_at: a.claim.due_at, claim_token: a.claim.claim_token };
    await expect(service.advance(BUDGET, s._id, stale)).rejects.toMatchObject({ status: 409, code: 'claim_expired' });
    await expect(service.release(BUDGET, s._id, stale)).rejects.toMatchObject({ status: 409, code: 'claim_expired' });

    // The new holder advances: its lease ends by signal, before the timer.
    const done = await service.advance(BUDGET, s._id, { due_at: b.claim.due_at, claim_token: b.claim.claim_token, outcome: 'success' });
    expect(done.already_advanced).toBe(false);
    expect(done.schedule.next_due_at.getTime()).toBe(b.claim.due_at.getTime() + 3600_000);
    const signalled = await leaseHandle(temporal, b.claim._id).result();
    expect(signalled).toEqual({ claimId: b.claim._id, ended: 'advanced', signalled: true });
    // The old holder after the advance: still expired, never applied.
    await expect(service.advance(BUDGET, s._id, stale)).rejects.toMatchObject({ code: 'claim_expired' });
    expect((await repo.get(s._id))!.advance_count).toBe(1);
  }));

  it('refuses an expired claim by the clock before the lease timer fires, and lets another holder take it', () => withWorker(async () => {
    const s = await dueSchedule(1);
    const t0 = serverClock().getTime();
    const early = new ScheduleService(repo, temporal, BOUNDS, () => new Date(t0));
    const late = new ScheduleService(repo, temporal, BOUNDS, () => new Date(t0 + 61_000));
    const a = await early.claim(BUDGET, { schedule_id: s._id, lease_seconds: 60 });
    // No time has passed on the server (nobody waited on a result): the timer has not fired.
    expect(await repo.claimEnd(a.claim._id)).toBeNull();
    await expect(late.advance(BUDGET, s._id, { due_at: a.claim.due_at, claim_token: a.claim.claim_token })).rejects.toMatchObject({ code: 'claim_expired' });
    const b = await late.claim(BUDGET, { schedule_id: s._id, lease_seconds: 60 });
    expect(b.claim.attempt).toBe(1);
    expect((await repo.claimEnd(a.claim._id))).toMatchObject({ kind: 'expired', reason: 'superseded_after_expiry' });
    await late.release(BUDGET, s._id, { due_at: b.claim.due_at, claim_token: b.claim.claim_token });
    expect(await leaseHandle(temporal, b.claim._id).result()).toMatchObject({ ended: 'released', signalled: true });
    // When the first lease's timer fires later, it finds the claim already ended.
    expect(await leaseHandle(temporal, a.claim._id).result()).toMatchObject({ ended: 'expired', signalled: false });
  }));

  it('replays the recorded lease history with the current workflow code', async () => {
    const history = proto.api.history.v1.History.fromObject(JSON.parse(fs.readFileSync(FIXTURE, 'utf8')));
    await Worker.runReplayHistory({ workflowsPath: require.resolve('../../temporal/workflows') }, history);
  });
});
