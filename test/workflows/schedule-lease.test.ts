import fs from 'node:fs';
import path from 'node:path';
import { temporal as proto } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { temporalTestServer } from '../../scripts/services/paths';
import { ids } from '../../shared/platform/ids/index';
import { pauseSchedule, resumeSchedule } from '../../shared/schedules/lifecycle';
import { buildSchedule } from '../../shared/schedules/new-schedule';
import { claimId, ScheduleRepository } from '../../shared/schedules/repository';
import { ScheduleService } from '../../shared/schedules/service';
import { type TemporalHandle, TYPE_BY_NAME } from '../../temporal/connection';
import { createScheduleLeaseActivities } from '../../temporal/schedule-lease/activities';
import { leaseHandle, startLease } from '../../temporal/schedule-lease/client';
import { SCHEDULE_LEASE_QUEUE } from '../../temporal/schedule-lease/config';
import { ALL_SEARCH_ATTRIBUTES } from '../../temporal/search-attributes';
import { workflowBundle } from '../../workers/workflow-bundle';
import { openTestDb } from '../support/db';
import { installTestRuntime } from '../support/runtime';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'histories', 'schedule-lease.json');
const BOUNDS = { minSeconds: 1, maxSeconds: 3600, defaultSeconds: 300 };
const BUDGET = 'bud_lease_test';

/**
 * Leases run out by the clock (docs/schedules.md#leases): services here get a clock of their own
 * against the real store. The lease workflow claims started before that change is checked on the
 * time-skipping server (it stays registered until those leases are done).
 */
describe('schedule leases against the real store; the legacy lease workflow on the time-skipping server', () => {
  let env: TestWorkflowEnvironment;
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let repo: ScheduleRepository;
  let temporal: TemporalHandle;
  let bundle: Awaited<ReturnType<typeof workflowBundle>>;

  beforeAll(async () => {
    installTestRuntime();
    db = await openTestDb();
    repo = new ScheduleRepository(db.models);
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: temporalTestServer() } },
    });
    temporal = {
      client: env.client,
      connection: env.connection,
      namespace: env.namespace ?? 'default',
      prefix: '',
      queue: (q) => q,
      close: async () => undefined,
    };
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
      activities: createScheduleLeaseActivities({ schedules: repo }),
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
      {
        budgetId: o.budgetId ?? BUDGET,
        workspaceId: 'ws_lease',
        workflowId: 'wf_lease',
        everySeconds: o.everySeconds ?? 3600,
        timezone: 'UTC',
        startAt: o.startAt ?? new Date(now.getTime() - minutesAgo * 60_000),
      },
      now,
    );
    if ('problem' in built) throw new Error(built.problem);
    return repo.create(built.schedule);
  }

  it('a lease that runs out with nobody calling: due lists the occurrence from its expiry on, not before; the stale holder is fenced off', async () => {
    const s = await dueSchedule(5);
    const t0 = serverClock().getTime();
    const at = (ms: number) => new ScheduleService(repo, BOUNDS, () => new Date(t0 + ms));
    const a = await at(0).claim(BUDGET, { schedule_id: s._id, lease_seconds: 600 });
    expect((await at(0).due(BUDGET, { limit: 10 })).items).toHaveLength(0);
    expect((await at(599_999).due(BUDGET, { limit: 10 })).items).toHaveLength(0);
    expect((await at(600_000).due(BUDGET, { limit: 10 })).items.map((i) => i.schedule._id)).toEqual([s._id]);

    // A new holder claims it; the first holder's token no longer moves anything.
    const later = at(601_000);
    const b = await later.claim(BUDGET, { schedule_id: s._id, lease_seconds: 600 });
    expect(b.claim.attempt).toBe(1);
    expect(b.claim.claim_token).not.toBe(a.claim.claim_token);
    expect(await repo.claimEnd(a.claim._id)).toMatchObject({ kind: 'expired', reason: 'superseded_after_expiry' });
    expect((await later.due(BUDGET, { limit: 10 })).items).toHaveLength(0);
    const stale = { due_at: a.claim.due_at, claim_token: a.claim.claim_token };
    await expect(later.advance(BUDGET, s._id, stale)).rejects.toMatchObject({ status: 409, code: 'claim_expired' });
    await expect(later.release(BUDGET, s._id, stale)).rejects.toMatchObject({ status: 409, code: 'claim_expired' });

    const done = await later.advance(BUDGET, s._id, {
      due_at: b.claim.due_at,
      claim_token: b.claim.claim_token,
      outcome: 'success',
    });
    expect(done).toMatchObject({ already_advanced: false, active: null });
    expect(done.schedule.next_due_at.getTime()).toBe(b.claim.due_at.getTime() + 3600_000);
    // The answer is what the store holds.
    expect(await repo.get(s._id)).toEqual(done.schedule);
    await expect(later.advance(BUDGET, s._id, stale)).rejects.toMatchObject({ code: 'claim_expired' });
    expect((await repo.get(s._id))!.advance_count).toBe(1);
    // Long after both leases would have run out, only the next occurrence is queued.
    expect(
      (await at(86_400_000).due(BUDGET, { limit: 10 })).items.map((i) => [i.schedule._id, i.schedule.next_due_at]),
    ).toEqual([[s._id, done.schedule.next_due_at]]);
  });

  it("a lease that ran out an hour later is due again with the latest occurrence due at the reader's clock, counting the skipped ones; a re-claim gets it", async () => {
    const budget = 'bud_lease_catchup';
    await syncClock();
    const t0 = serverClock().getTime();
    // Every minute, first due 5½ minutes ago: occurrences fall at t0 + 30 s + k minutes.
    const s = await dueSchedule(0, { budgetId: budget, everySeconds: 60, startAt: new Date(t0 - 330_000) });
    const a = await new ScheduleService(repo, BOUNDS, () => new Date(t0)).claim(budget, { lease_seconds: 3600 });
    expect(a.claim).toMatchObject({ schedule_id: s._id, skipped: 5, held_entry: false });
    // The claimed occurrence stays the schedule's current one; readers leave it out while the lease holds.
    expect((await repo.get(s._id))!.next_due_at).toEqual(s.next_due_at);
    const expiry = a.claim.lease_expires_at.getTime();
    expect(
      (await new ScheduleService(repo, BOUNDS, () => new Date(expiry - 1)).due(budget, { limit: 10 })).items,
    ).toEqual([]);

    // An agent a second after the lease ran out: due and a "next due" re-claim hand out the latest
    // occurrence at or before its clock; the ones in between are skipped.
    const agentNow = expiry + 1000;
    const latest = t0 + 30_000 + Math.floor((agentNow - t0 - 30_000) / 60_000) * 60_000;
    const skipped = (latest - s.next_due_at.getTime()) / 60_000;
    expect(skipped).toBeGreaterThanOrEqual(65);
    const agent = new ScheduleService(repo, BOUNDS, () => new Date(agentNow));
    const due = await agent.due(budget, { limit: 10 });
    expect(due.items.map((i) => [i.schedule._id, i.due_at.toISOString(), i.skipped])).toEqual([
      [s._id, new Date(latest).toISOString(), skipped],
    ]);
    const b = await agent.claim(budget, { lease_seconds: 600 });
    expect(b.claim).toMatchObject({ schedule_id: s._id, attempt: 1, due_at: new Date(latest), skipped });
    expect((await agent.due(budget, { limit: 10 })).items).toEqual([]);
    // Another process (no memory of the claim) reads the store and leaves it out too.
    expect(
      (await new ScheduleService(repo, BOUNDS, () => new Date(agentNow)).due(budget, { limit: 10 })).items,
    ).toEqual([]);
  });

  it('a schedule paused across three skipped days resumes at its next occurrence after the resume time, without replaying the paused period', async () => {
    const budget = 'bud_lease_pause';
    const s = await dueSchedule(10, { budgetId: budget });
    let now = serverClock();
    const service = new ScheduleService(repo, BOUNDS, () => now);
    expect((await service.due(budget, { limit: 10 })).items.map((i) => i.schedule._id)).toEqual([s._id]);
    const paused = await pauseSchedule(repo, s, now);
    expect(paused.paused).toBe(true);
    expect((await service.due(budget, { limit: 10 })).items).toEqual([]);
    await expect(service.claim(budget, { schedule_id: s._id, lease_seconds: 60 })).rejects.toMatchObject({
      code: 'occurrence_not_due',
    });

    now = new Date(now.getTime() + 3 * 86_400_000 + 1000);
    const resumed = await resumeSchedule(repo, paused, now);
    expect(resumed.paused).toBe(false);
    expect(resumed.next_due_at.getTime()).toBeGreaterThan(now.getTime());
    expect(resumed.next_due_at.getTime()).toBeLessThanOrEqual(now.getTime() + 3600_000);
    expect((resumed.next_due_at.getTime() - s.next_due_at.getTime()) % 3600_000).toBe(0);
    expect((await service.due(budget, { limit: 10 })).items).toEqual([]);
    await expect(service.claim(budget, { lease_seconds: 60 })).rejects.toMatchObject({ code: 'occurrence_not_due' });

    // Past the resumed occurrence: it is due alone, nothing of the paused days is counted.
    now = new Date(resumed.next_due_at.getTime() + 60_000);
    const due = await service.due(budget, { limit: 10 });
    expect(due.items.map((i) => [i.schedule._id, i.due_at.toISOString(), i.skipped])).toEqual([
      [s._id, resumed.next_due_at.toISOString(), 0],
    ]);
    const c = await service.claim(budget, { lease_seconds: 60 });
    expect(c.claim).toMatchObject({ schedule_id: s._id, due_at: resumed.next_due_at, skipped: 0 });
    await service.release(budget, s._id, { due_at: c.claim.due_at, claim_token: c.claim.claim_token });
  });

  it('a lease workflow started before leases ran out by the clock still sleeps until lease_expires_at, then records the expiry; the occurrence is due again', () =>
    withWorker(async () => {
      const budget = 'bud_lease_legacy';
      const s = await dueSchedule(5, { budgetId: budget });
      const now = serverClock();
      const id = claimId(s._id, s.next_due_at, 0);
      // A claim as the API made them then (without held_entry), a lease workflow started.
      const claim = {
        _id: id,
        schedule_id: s._id,
        budget_id: budget,
        base_due_at: s.next_due_at,
        attempt: 0,
        due_at: s.next_due_at,
        skipped: 0,
        claim_token: ids.claimToken(id),
        claimed_at: now,
        lease_expires_at: new Date(now.getTime() + 600_000),
      };
      expect(await repo.insertClaim(claim)).toBe(true);
      await startLease(temporal, {
        claimId: id,
        scheduleId: s._id,
        budgetId: budget,
        dueAt: claim.due_at.toISOString(),
        leaseExpiresAt: claim.lease_expires_at.toISOString(),
      });

      // Time skips 10 minutes: the lease runs out with nobody releasing or advancing.
      expect(await leaseHandle(temporal, id).result()).toEqual({ claimId: id, ended: 'expired', signalled: false });
      expect(await repo.claimEnd(id)).toMatchObject({ kind: 'expired', reason: 'lease_expired' });
      await syncClock();
      const due = await new ScheduleService(repo, BOUNDS, serverClock).due(budget, { limit: 10 });
      expect(due.items.map((i) => i.schedule._id)).toEqual([s._id]);

      const history = await leaseHandle(temporal, id).fetchHistory();
      if (!fs.existsSync(FIXTURE) || process.env.UPDATE_HISTORIES === '1')
        fs.writeFileSync(FIXTURE, JSON.stringify(history, null, 1));
    }));

  it('replays the recorded lease history with the current workflow code', async () => {
    const history = proto.api.history.v1.History.fromObject(JSON.parse(fs.readFileSync(FIXTURE, 'utf8')));
    await Worker.runReplayHistory({ workflowsPath: require.resolve('../../temporal/workflows') }, history);
  });
});
