import { ids } from '../../shared/platform/ids/index';
import { pauseSchedule } from '../../shared/schedules/lifecycle';
import { buildSchedule } from '../../shared/schedules/new-schedule';
import { claimId, type Schedule, ScheduleRepository } from '../../shared/schedules/repository';
import { ScheduleService } from '../../shared/schedules/service';
import { openTestDb } from '../support/db';

const BOUNDS = { minSeconds: 1, maxSeconds: 3600, defaultSeconds: 300 };

/**
 * The claim and advance paths at the floor of the store (issue 17): a claim is one schedule read
 * and one insert, an advance of a claim made by the same process is two writes (the claim's end,
 * carrying the advance, and the guarded apply), and every shortcut still loses to the decisions of
 * other processes (services here share nothing but the store).
 */
describe('schedule claims and advances against the real store', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let repo: ScheduleRepository;
  let n = 0;

  beforeAll(async () => {
    db = await openTestDb();
    repo = new ScheduleRepository(db.models);
  });
  afterAll(async () => db?.drop());

  async function dueSchedule(budgetId: string, now = new Date()): Promise<Schedule> {
    const built = buildSchedule(
      {
        budgetId,
        workspaceId: 'ws_claims',
        workflowId: 'wf_claims',
        everySeconds: 3600,
        timezone: 'UTC',
        startAt: new Date(now.getTime() - 120_000),
      },
      now,
    );
    if ('problem' in built) throw new Error(built.problem);
    return repo.create(built.schedule);
  }
  const budget = () => `bud_claims${++n}`;
  const advancedEnds = (scheduleId: string) =>
    db.models.scheduleClaimEnds.countDocuments({ schedule_id: scheduleId, kind: 'advanced' });

  /** The store commands `body` sends, as `<method> <collection>`. */
  async function commands<T>(body: () => Promise<T>): Promise<{ result: T; sent: string[] }> {
    const sent: string[] = [];
    db.connection.set('debug', (collection: string, method: string) => sent.push(`${method} ${collection}`));
    try {
      return { result: await body(), sent };
    } finally {
      db.connection.set('debug', false);
    }
  }

  it('a claim reads the schedule and inserts once; advancing it from the same process writes and reads only its pause row, and answers what the store holds', async () => {
    const b = budget();
    const s = await dueSchedule(b);
    const service = new ScheduleService(repo, BOUNDS);
    const claim = await commands(() => service.claim(b, { schedule_id: s._id, lease_seconds: 60 }));
    // The schedule and its pause row (point reads, at once), then the insert.
    expect(claim.sent.sort()).toEqual([
      'findOne schedule_pauses',
      'findOne workflow_schedules',
      'insertMany schedule_claims',
    ]);
    const c = claim.result.claim;
    // The occurrence stays the schedule's current one while held; due leaves it out here and in another process.
    expect((await service.due(b, { limit: 10 })).items).toEqual([]);
    expect((await new ScheduleService(repo, BOUNDS).due(b, { limit: 10 })).items).toEqual([]);

    const advance = await commands(() =>
      service.advance(b, s._id, { due_at: c.due_at, claim_token: c.claim_token, outcome: 'success', note: 'n' }),
    );
    // No read of the schedule (as claimed, applied, it is the answer); the budget's pause rows, read after the decision.
    expect(advance.sent.filter((m) => /^(find|findOne) /.test(m))).toEqual(['find schedule_pauses']);
    // The end (the decision, carrying the advance) and the guarded apply (which moves the schedule, its own queue entry).
    expect(advance.sent.sort()).toEqual([
      'find schedule_pauses',
      'insertMany schedule_claim_ends',
      'updateOne workflow_schedules',
    ]);
    const done = advance.result;
    expect(done).toMatchObject({
      already_advanced: false,
      active: null,
      schedule: { advance_count: 1, last_outcome: 'success', last_note: 'n' },
    });
    expect(await repo.get(s._id)).toEqual(done.schedule);
    expect(await repo.claimEnd(c._id)).toMatchObject({
      kind: 'advanced',
      note: 'n',
      advance: { claim_token: c.claim_token, seq: 1 },
    });
    expect(await repo.getAdvance(s._id, c.base_due_at)).toMatchObject({ claim_token: c.claim_token, seq: 1 });
    expect(await repo.history(s._id)).toEqual([(await repo.claimEnd(c._id))!.advance]);

    // Repeats, from here or elsewhere, change nothing.
    for (const again of [service, new ScheduleService(repo, BOUNDS)]) {
      const r = await again.advance(b, s._id, { due_at: c.due_at, claim_token: c.claim_token, outcome: 'failed' });
      expect(r).toMatchObject({ already_advanced: true, schedule: { advance_count: 1, last_outcome: 'success' } });
    }
    expect(await advancedEnds(s._id)).toBe(1);
  });

  it('a "next due" claim takes the schedule from its queue entry: one insert once the due read is in hand', async () => {
    const b = budget();
    const s1 = await dueSchedule(b);
    const s2 = await dueSchedule(b);
    const service = new ScheduleService(repo, BOUNDS);
    const first = await service.claim(b, { lease_seconds: 60 });
    const second = await commands(() => service.claim(b, { lease_seconds: 60 }));
    // The first claim's due read is reused (a fresh one only when it is over a second old): its pause rows
    // were read before this claim began, so the budget's pause rows are read once more, then the insert.
    expect(second.sent.filter((m) => m !== 'find workflow_schedules').sort()).toEqual([
      'find schedule_pauses',
      'insertMany schedule_claims',
    ]);
    expect([first.claim.schedule_id, second.result.claim.schedule_id].sort()).toEqual([s1._id, s2._id].sort());
    expect(second.result.schedule).toEqual(await repo.get(second.result.claim.schedule_id));
  });

  it('concurrent claims of one budget share the reads of its pause rows that began after they did', async () => {
    const b = budget();
    const due = await Promise.all(Array.from({ length: 6 }, () => dueSchedule(b)));
    const service = new ScheduleService(repo, BOUNDS);
    const claims = await commands(() => Promise.all(due.map(() => service.claim(b, { lease_seconds: 60 }))));
    expect(claims.result.map((r) => r.claim.schedule_id).sort()).toEqual(due.map((s) => s._id).sort());
    // One per claim and one for the due read before: 7. Shared: the due read's, and one begun after the claims.
    const pauseReads = claims.sent.filter((m) => m === 'find schedule_pauses').length;
    expect(pauseReads).toBeGreaterThanOrEqual(1);
    expect(pauseReads).toBeLessThanOrEqual(3);
  });

  it('an advance whose apply never landed (a crash after its end): the next claimer applies it and claims the next occurrence; due applies it too', async () => {
    const b = budget();
    const t0 = Date.now();
    const built = buildSchedule(
      {
        budgetId: b,
        workspaceId: 'ws_claims',
        workflowId: 'wf_claims',
        everySeconds: 60,
        timezone: 'UTC',
        startAt: new Date(t0 - 30_000),
      },
      new Date(t0),
    );
    if ('problem' in built) throw new Error(built.problem);
    const s = await repo.create(built.schedule);
    const first = new ScheduleService(repo, BOUNDS, () => new Date(t0));
    const c = (await first.claim(b, { schedule_id: s._id, lease_seconds: 60 })).claim;
    // As if the process stopped after the end's insert: the apply is held back here.
    const apply = jest.spyOn(repo, 'applyAdvanceIfOpen').mockImplementationOnce(async () => true);
    const a = await first.advance(b, s._id, { due_at: c.due_at, claim_token: c.claim_token, outcome: 'success' });
    apply.mockRestore();
    expect((await repo.get(s._id))!.next_due_at).toEqual(s.next_due_at);

    const later = new ScheduleService(repo, BOUNDS, () => new Date(a.schedule.next_due_at.getTime() + 1000));
    const d = (await later.claim(b, { lease_seconds: 60 })).claim;
    expect(d).toMatchObject({ schedule_id: s._id, base_due_at: a.schedule.next_due_at, attempt: 0 });
    expect((await repo.get(s._id))!).toMatchObject({ advance_count: 1, next_due_at: a.schedule.next_due_at });

    // The same again, found by a due read instead of a claim.
    const lost = jest.spyOn(repo, 'applyAdvanceIfOpen').mockImplementationOnce(async () => true);
    const e = await later.advance(b, s._id, { due_at: d.due_at, claim_token: d.claim_token, outcome: 'failed' });
    lost.mockRestore();
    expect((await repo.get(s._id))!.advance_count).toBe(1);
    const reader = new ScheduleService(repo, BOUNDS, () => new Date(e.schedule.next_due_at.getTime() + 1000));
    expect((await reader.due(b, { limit: 10 })).items).toEqual([]);
    expect((await repo.get(s._id))!).toMatchObject({
      advance_count: 2,
      last_outcome: 'failed',
      next_due_at: e.schedule.next_due_at,
    });
    expect((await reader.due(b, { limit: 10 })).items.map((i) => i.schedule._id)).toEqual([s._id]);
  });

  it('a pause between a claim and its advance from memory: the advance answers it paused and queues nothing a "next due" claim could take', async () => {
    const b = budget();
    const t0 = Date.now();
    const built = buildSchedule(
      {
        budgetId: b,
        workspaceId: 'ws_claims',
        workflowId: 'wf_claims',
        everySeconds: 60,
        timezone: 'UTC',
        startAt: new Date(t0 - 30_000),
      },
      new Date(t0),
    );
    if ('problem' in built) throw new Error(built.problem);
    const s = await repo.create(built.schedule);
    const service = new ScheduleService(repo, BOUNDS, () => new Date(t0));
    const c = (await service.claim(b, { lease_seconds: 60 })).claim;
    await pauseSchedule(repo, (await repo.get(s._id))!, new Date(t0));
    const done = await service.advance(b, s._id, { due_at: c.due_at, claim_token: c.claim_token, outcome: 'success' });
    expect(done.schedule).toMatchObject({ paused: true, advance_count: 1 });
    expect(await repo.get(s._id)).toEqual(done.schedule);
    const later = new ScheduleService(repo, BOUNDS, () => new Date(done.schedule.next_due_at.getTime() + 1000));
    await expect(later.claim(b, { lease_seconds: 60 })).rejects.toMatchObject({ code: 'occurrence_not_due' });
  });

  it('a claim made by another process is advanced after reading it; a wrong due_at, schedule or budget is refused as before', async () => {
    const b = budget();
    const s = await dueSchedule(b);
    const other = await dueSchedule(b);
    const claimer = new ScheduleService(repo, BOUNDS);
    const c = (await claimer.claim(b, { schedule_id: s._id, lease_seconds: 60 })).claim;
    await expect(
      claimer.advance(b, s._id, { due_at: new Date(c.due_at.getTime() + 1), claim_token: c.claim_token }),
    ).rejects.toMatchObject({ code: 'due_at_mismatch' });
    await expect(claimer.advance(b, other._id, { due_at: c.due_at, claim_token: c.claim_token })).rejects.toMatchObject(
      { code: 'claim_required' },
    );
    await expect(
      claimer.advance('bud_someone_else', s._id, { due_at: c.due_at, claim_token: c.claim_token }),
    ).rejects.toMatchObject({ code: 'schedule_not_found' });
    const elsewhere = new ScheduleService(repo, BOUNDS);
    const done = await elsewhere.advance(b, s._id, {
      due_at: c.due_at,
      claim_token: c.claim_token,
      outcome: 'success',
    });
    expect(done).toMatchObject({ already_advanced: false, active: null });
    expect(await repo.get(s._id)).toEqual(done.schedule);
    // The claimer's memory of it is no shortcut past the record: a repeat there answers already_advanced.
    expect(await claimer.advance(b, s._id, { due_at: c.due_at, claim_token: c.claim_token })).toMatchObject({
      already_advanced: true,
    });
    expect(await advancedEnds(s._id)).toBe(1);
  });

  it('claimers in separate processes race for one occurrence: one wins, the rest are refused; after a release the next claim is attempt 1', async () => {
    const b = budget();
    const s = await dueSchedule(b);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () =>
        new ScheduleService(repo, BOUNDS).claim(b, { schedule_id: s._id, lease_seconds: 60 }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'occurrence_claimed' });
    const c = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<ScheduleService['claim']>>>).value.claim;
    expect(c.attempt).toBe(0);
    await expect(new ScheduleService(repo, BOUNDS).claim(b, { lease_seconds: 60 })).rejects.toMatchObject({
      code: 'occurrence_not_due',
    });

    await new ScheduleService(repo, BOUNDS).release(b, s._id, { due_at: c.due_at, claim_token: c.claim_token });
    const next = await new ScheduleService(repo, BOUNDS).claim(b, { lease_seconds: 60 });
    expect(next.claim).toMatchObject({ schedule_id: s._id, attempt: 1 });
    expect(next.claim._id).toBe(claimId(s._id, s.next_due_at, 1));
  });

  it("at the lease's end, the holder advancing from memory and another process taking the occurrence over: exactly one wins, every time", async () => {
    for (let round = 0; round < 6; round++) {
      const b = budget();
      const t0 = Date.now();
      const s = await dueSchedule(b, new Date(t0));
      let holderNow = t0;
      const holder = new ScheduleService(repo, BOUNDS, () => new Date(holderNow));
      const c = (await holder.claim(b, { schedule_id: s._id, lease_seconds: 60 })).claim;
      holderNow = t0 + 59_999; // the holder still sees its lease; the taker's clock is past it
      const taker = new ScheduleService(repo, BOUNDS, () => new Date(t0 + 60_000));
      const [adv, take] = await Promise.allSettled([
        holder.advance(b, s._id, { due_at: c.due_at, claim_token: c.claim_token, outcome: 'success' }),
        taker.claim(b, { schedule_id: s._id, lease_seconds: 60 }),
      ]);
      const end = await repo.claimEnd(c._id);
      if (adv.status === 'fulfilled') {
        expect(adv.value.already_advanced).toBe(false);
        expect(take).toMatchObject({ status: 'rejected', reason: { code: 'occurrence_not_due' } });
        expect(end).toMatchObject({ kind: 'advanced' });
        expect(await db.models.scheduleClaims.countDocuments({ schedule_id: s._id })).toBe(1);
      } else {
        expect(adv.reason).toMatchObject({ code: 'claim_expired' });
        expect(take).toMatchObject({ status: 'fulfilled', value: { claim: { attempt: 1 } } });
        expect(end).toMatchObject({ kind: 'expired', reason: 'superseded_after_expiry' });
        expect(await advancedEnds(s._id)).toBe(0);
      }
    }
  });

  it('data from before (claims with a held entry, advances recorded apart from their end) is still handled: advance, release, takeover, repeat, history', async () => {
    const legacy = async (b: string, s: Schedule, now: Date, leaseMs: number) => {
      const id = claimId(s._id, s.next_due_at, 0);
      const claim = {
        _id: id,
        schedule_id: s._id,
        budget_id: b,
        base_due_at: s.next_due_at,
        attempt: 0,
        due_at: s.next_due_at,
        skipped: 0,
        claim_token: ids.claimToken(id),
        claimed_at: now,
        lease_expires_at: new Date(now.getTime() + leaseMs),
      };
      expect(await repo.insertClaim(claim)).toBe(true);
      // Its held entry in the old queue collection, which nothing reads any more.
      await db.connection.collection('schedule_due').insertOne({
        _id: `${b}:${claim.lease_expires_at.toISOString()}:${s._id}:x` as never,
        budget_id: b,
        schedule_id: s._id,
        base_due_at: s.next_due_at,
        reason: 'expired',
      });
      return claim;
    };
    const now = new Date();
    const service = new ScheduleService(repo, BOUNDS, () => now);
    const dueIds = async (b: string, at = now) =>
      (await new ScheduleService(repo, BOUNDS, () => at).due(b, { limit: 10 })).items.map((i) => i.schedule._id);

    const b1 = budget();
    const s1 = await dueSchedule(b1, now);
    const c1 = await legacy(b1, s1, now, 60_000);
    expect(await dueIds(b1)).toEqual([]);
    const done = await service.advance(b1, s1._id, { due_at: c1.due_at, claim_token: c1.claim_token });
    expect(await repo.get(s1._id)).toEqual(done.schedule);
    expect(await dueIds(b1, new Date(done.schedule.next_due_at.getTime() + 1000))).toEqual([s1._id]);

    const b2 = budget();
    const s2 = await dueSchedule(b2, now);
    const c2 = await legacy(b2, s2, now, 60_000);
    await service.release(b2, s2._id, { due_at: c2.due_at, claim_token: c2.claim_token });
    expect(await dueIds(b2)).toEqual([s2._id]);

    const b3 = budget();
    const s3 = await dueSchedule(b3, now);
    await legacy(b3, s3, new Date(now.getTime() - 120_000), 60_000);
    const taken = await service.claim(b3, { lease_seconds: 60 });
    expect(taken.claim).toMatchObject({ schedule_id: s3._id, attempt: 1 });
    expect(await dueIds(b3)).toEqual([]);
    expect(await dueIds(b3, new Date(now.getTime() + 60_000))).toEqual([s3._id]);

    // Advanced by the code before: the end without its advance, the record in schedule_advances.
    const b4 = budget();
    const s4 = await dueSchedule(b4, now);
    const c4 = await legacy(b4, s4, now, 60_000);
    const old = {
      ...(await new ScheduleService(repo, BOUNDS, () => now).advance(b4, s4._id, {
        due_at: c4.due_at,
        claim_token: c4.claim_token,
        outcome: 'success',
      })),
    };
    const end = (await repo.claimEnd(c4._id))!;
    await db.models.scheduleAdvances.collection.insertOne(end.advance as never);
    await db.models.scheduleClaimEnds.collection.updateOne({ _id: c4._id } as never, { $unset: { advance: '' } });
    expect(await repo.claimEnd(c4._id)).not.toHaveProperty('advance');
    const repeat = await new ScheduleService(repo, BOUNDS, () => now).advance(b4, s4._id, {
      due_at: c4.due_at,
      claim_token: c4.claim_token,
    });
    expect(repeat).toMatchObject({
      already_advanced: true,
      schedule: { advance_count: 1, next_due_at: old.schedule.next_due_at },
    });
    expect(await repo.history(s4._id)).toEqual([end.advance]);
    expect(await repo.getAdvance(s4._id, s4.next_due_at)).toEqual(end.advance);

    // An end from before whose record never landed (the old code stopped between its two inserts): the repeat completes it.
    const b5 = budget();
    const s5 = await dueSchedule(b5, now);
    const c5 = await legacy(b5, s5, now, 60_000);
    await repo.endClaim(c5, 'advanced', now);
    const completed = await service.advance(b5, s5._id, {
      due_at: c5.due_at,
      claim_token: c5.claim_token,
      outcome: 'skipped',
    });
    expect(completed).toMatchObject({
      already_advanced: false,
      schedule: { advance_count: 1, last_outcome: 'skipped' },
    });
    expect(await db.models.scheduleAdvances.countDocuments({ schedule_id: s5._id })).toBe(1);
    expect(await service.advance(b5, s5._id, { due_at: c5.due_at, claim_token: c5.claim_token })).toMatchObject({
      already_advanced: true,
    });
  });
});
