import fs from 'node:fs';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { ScheduleService } from '../../api/services/schedules';
import { temporalTestServer } from '../../scripts/services/paths';
import { pauseSchedule, resumeSchedule } from '../../shared/schedules/lifecycle';
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

  async function dueSchedule(minutesAgo: number, o: { budgetId?: string; everySeconds?: number; startAt?: Date } = {}) {
    await syncClock();
    const now = serverClock();
    const built = buildSchedule(
      { budgetId: o.budgetId ?? BUDGET, workspaceId: 'ws_lease', workflowId: 'wf_lease', everySeconds: o.everySeconds ?? 3600, timezone: 'UTC', startAt: o.startAt ?? new Date(now.getTime() - minutesAgo * 60_000) },
      now,
    );
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

  it('a lease that runs out an hour later requeues the latest occurrence due at the workflow\'s time, counting the skipped ones; a re-claim gets it', () => withWorker(async () => {
    const budget = 'bud_lease_catchup';
    await syncClock();
    const t0 = serverClock().getTime();
    // Every minute, first due 5½ minutes ago: occurrences fall at t0 + 30 s + k minutes.
    const s = await dueSchedule(0, { budgetId: budget, everySeconds: 60, startAt: new Date(t0 - 330_000) });
    const service = new ScheduleService(repo, temporal, BOUNDS, serverClock);
    const a = await service.claim(budget, { lease_seconds: 3600 });
    expect(a.claim).toMatchObject({ schedule_id: s._id, skipped: 5 });
    expect(await repo.dueEntry(budget, s.next_due_at, s._id)).toBeNull();

    // The time-skipping server runs the hour; the machine's clock stays where it was.
    expect(await leaseHandle(temporal, a.claim._id).result()).toMatchObject({ ended: 'expired', signalled: false });
    const entry = (await repo.dueEntry(budget, s.next_due_at, s._id))!;
    expect(entry).toMatchObject({ reason: 'expired', schedule_id: s._id, base_due_at: s.next_due_at });
    // Computed with the workflow's time (when the lease ran out), an hour ahead of the wall clock.
    expect(entry.as_of.getTime()).toBeGreaterThanOrEqual(a.claim.lease_expires_at.getTime());
    expect(entry.as_of.getTime()).toBeGreaterThan(Date.now() + 3500_000);
    // Coalesced to the latest occurrence at or before that time; the ones in between are skipped.
    expect(entry.due_at.getTime()).toBeLessThanOrEqual(entry.as_of.getTime());
    expect(entry.due_at.getTime() + 60_000).toBeGreaterThan(entry.as_of.getTime());
    expect((entry.due_at.getTime() - s.next_due_at.getTime()) % 60_000).toBe(0);
    expect(entry.skipped).toBe((entry.due_at.getTime() - s.next_due_at.getTime()) / 60_000);
    expect(entry.skipped).toBeGreaterThanOrEqual(65);

    // An agent right after the lease ran out: the due queue and a "next due" re-claim hand out that
    // one occurrence. (Once nothing is pending the server's clock jumps far ahead, so this agent's
    // clock is pinned a second after the expiry.)
    const agent = new ScheduleService(repo, temporal, BOUNDS, () => new Date(entry.as_of.getTime() + 1000));
    const due = await agent.due(budget, { limit: 10 });
    expect(due.items.map((i) => [i.schedule._id, i.due_at.toISOString(), i.skipped])).toEqual([[s._id, entry.due_at.toISOString(), entry.skipped]]);
    const b = await agent.claim(budget, { lease_seconds: 600 });
    expect(b.claim).toMatchObject({ schedule_id: s._id, attempt: 1, due_at: entry.due_at, skipped: entry.skipped });
    expect((await agent.due(budget, { limit: 10 })).items).toEqual([]);
    expect(await repo.dueEntry(budget, s.next_due_at, s._id)).toBeNull();
    // (Its lease runs on the server's far-ahead clock and ends at once.)
    expect(await leaseHandle(temporal, b.claim._id).result()).toMatchObject({ ended: 'expired' });
  }));

  it('a schedule paused across three skipped days resumes at its next occurrence after the resume time, without replaying the paused period', () => withWorker(async () => {
    const budget = 'bud_lease_pause';
    const s = await dueSchedule(10, { budgetId: budget });
    const service = new ScheduleService(repo, temporal, BOUNDS, serverClock);
    expect((await service.due(budget, { limit: 10 })).items.map((i) => i.schedule._id)).toEqual([s._id]);
    const paused = await pauseSchedule(repo, s, serverClock());
    expect(paused.paused).toBe(true);
    expect((await service.due(budget, { limit: 10 })).items).toEqual([]);
    await expect(service.claim(budget, { schedule_id: s._id, lease_seconds: 60 })).rejects.toMatchObject({ code: 'occurrence_not_due' });

    await env.sleep(3 * 86_400_000);
    await syncClock();
    const resumeAt = serverClock();
    expect(resumeAt.getTime() - s.next_due_at.getTime()).toBeGreaterThan(3 * 86_400_000);
    const resumed = await resumeSchedule(repo, paused, resumeAt);
    expect(resumed.paused).toBe(false);
    expect(resumed.next_due_at.getTime()).toBeGreaterThan(resumeAt.getTime());
    expect(resumed.next_due_at.getTime()).toBeLessThanOrEqual(resumeAt.getTime() + 3600_000);
    expect((resumed.next_due_at.getTime() - s.next_due_at.getTime()) % 3600_000).toBe(0);
    expect((await service.due(budget, { limit: 10 })).items).toEqual([]);
    await expect(service.claim(budget, { lease_seconds: 60 })).rejects.toMatchObject({ code: 'occurrence_not_due' });

    // Skip past the resumed occurrence: it is due alone, nothing of the paused days is counted.
    await env.sleep(resumed.next_due_at.getTime() - serverClock().getTime() + 60_000);
    await syncClock();
    const due = await service.due(budget, { limit: 10 });
    expect(due.items.map((i) => [i.schedule._id, i.due_at.toISOString(), i.skipped])).toEqual([[s._id, resumed.next_due_at.toISOString(), 0]]);
    const c = await service.claim(budget, { lease_seconds: 60 });
    expect(c.claim).toMatchObject({ schedule_id: s._id, due_at: resumed.next_due_at, skipped: 0 });
    await service.release(budget, s._id, { due_at: c.claim.due_at, claim_token: c.claim.claim_token });
  }));

  it('replays the recorded lease history with the current workflow code', async () => {
    const history = proto.api.history.v1.History.fromObject(JSON.parse(fs.readFileSync(FIXTURE, 'utf8')));
    await Worker.runReplayHistory({ workflowsPath: require.resolve('../../temporal/workflows') }, history);
  });
});
