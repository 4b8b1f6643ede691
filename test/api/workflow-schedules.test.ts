import { ScheduleRepository } from '../../shared/schedules/repository';
import { ScheduleService } from '../../shared/schedules/service';
import { http } from '../support/http';
import {
  makeSchedule,
  type ScheduleAccount,
  scheduleAccount,
  scheduleBearer,
  schedulesApi,
} from '../support/schedules';
import { startTestStack, type TestStack } from '../support/stack';

const SPEC_META = ['request_id', 'help_url', 'help_doc'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('workflow schedules over HTTP against the real store and Temporal', () => {
  let stack: TestStack;
  let api: ReturnType<typeof schedulesApi>;
  let acct: ScheduleAccount;
  let repo: ScheduleRepository;
  beforeAll(async () => {
    stack = await startTestStack({ workers: true, env: { SCHEDULE_LEASE_MIN_SECONDS: '1' } });
    api = schedulesApi(stack.server.mainUrl);
    repo = new ScheduleRepository(stack.db.models);
    acct = await scheduleAccount(stack.db, 'main');
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function claim(id: string, lease_seconds = 300) {
    const res = await api('POST', '/claim', acct.auth, { schedule_id: id, lease_seconds });
    expect(res.status).toBe(200);
    return res.body.data as { claim_token: string; due_at: string; lease_expires_at: string; schedule_id: string };
  }

  function expectConflict(res: { status: number; body: any }, code: string, requestId?: string) {
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: code, error_code: code, help_doc: `docs/errors.md#${code}` });
    expect(res.body.help_url).toMatch(new RegExp(`/docs/errors#${code}$`));
    if (requestId) expect(res.body.request_id).toBe(requestId);
  }

  it("refuses a missing, malformed or unknown bearer (401) and keys of two workspaces; another budget's schedule is 404", async () => {
    const s = await makeSchedule(stack.db, acct);
    const other = await scheduleAccount(stack.db, 'other');
    for (const auth of [
      undefined,
      'Bearer',
      `Bearer ${acct.apiKey}`,
      'Bearer !!!',
      scheduleBearer(acct.apiKey, 'bk_' + 'A'.repeat(43)),
      scheduleBearer(acct.apiKey, other.budgetKey),
    ]) {
      const res = await api('GET', '/due', auth);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({
        error_code: 'budget_bearer_invalid',
        request_id: expect.any(String),
        help_url: expect.any(String),
        help_doc: 'docs/errors.md#budget_bearer_invalid',
      });
    }
    const claimed = await claim(s._id);
    const body = { due_at: claimed.due_at, claim_token: claimed.claim_token };
    for (const res of [
      await api('POST', '/claim', other.auth, { schedule_id: s._id }),
      await api('POST', `/${s._id}/advance`, other.auth, body),
      await api('POST', `/${s._id}/release`, other.auth, body),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error_code).toBe('schedule_not_found');
    }
    expect((await api('GET', '/due', other.auth)).body.data.occurrences).toEqual([]);
    expect((await api('POST', `/${s._id}/release`, acct.auth, body)).status).toBe(200);
  });

  it('answers 400 in the gateway shape for a bad id, body, query or JSON', async () => {
    const s = await makeSchedule(stack.db, acct);
    const cases = [
      await api('POST', '/not-an-id/advance', acct.auth, { due_at: new Date().toISOString(), claim_token: 'x' }),
      await api('POST', `/${s._id}/advance`, acct.auth, { claim_token: 'x' }),
      await api('POST', `/${s._id}/advance`, acct.auth, { due_at: 'yesterday', claim_token: 'x' }),
      await api('POST', `/${s._id}/advance`, acct.auth, {
        due_at: new Date().toISOString(),
        claim_token: 'x',
        outcome: 'great',
      }),
      await api('POST', `/${s._id}/release`, acct.auth, { due_at: new Date().toISOString() }),
      await api('POST', '/claim', acct.auth, { lease_seconds: 999_999 }),
      await api('GET', '/due?limit=0', acct.auth),
      await http('POST', `${stack.server.mainUrl}/api/external/workflow-schedules/claim`, {
        raw: '{nope',
        headers: { authorization: acct.auth },
      }),
      // Found by the fuzzer: a JSON null body was read as no body and claimed.
      await http('POST', `${stack.server.mainUrl}/api/external/workflow-schedules/claim`, {
        raw: 'null',
        headers: { authorization: acct.auth },
      }),
    ];
    for (const res of cases) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: 'Bad Request',
        error_code: 'invalid_request_body',
        details: { issues: expect.any(Array) },
      });
      for (const k of SPEC_META) expect(res.body[k]).toEqual(expect.any(String));
    }
  });

  it('lists due, unclaimed occurrences oldest first, a page at a time, with how late they are', async () => {
    const a = await scheduleAccount(stack.db, 'paging');
    const ids = [];
    for (const minutes of [30, 20, 10]) ids.push((await makeSchedule(stack.db, a, { dueMinutesAgo: minutes }))._id);
    await makeSchedule(stack.db, a, { cron: '0 0 1 1 *', timezone: 'Europe/Berlin' }); // not due for months
    const first = await api('GET', '/due?limit=2', a.auth);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['data', 'help_doc', 'help_url', 'request_id', 'success']);
    expect(first.body.data.occurrences.map((o: any) => o.schedule_id)).toEqual(ids.slice(0, 2));
    expect(first.body.data.occurrences[0]).toMatchObject({
      workflow_id: a.workflowId,
      skipped_occurrences: 0,
      every_seconds: 3600,
    });
    expect(first.body.data.occurrences[0].late_seconds).toBeGreaterThanOrEqual(30 * 60 - 1);
    const second = await api('GET', `/due?limit=2&cursor=${first.body.data.next_cursor}`, a.auth);
    expect(second.body.data.occurrences.map((o: any) => o.schedule_id)).toEqual([ids[2]]);
    expect(second.body.data.next_cursor).toBeNull();

    // A claimed occurrence leaves the queue; a "next due" claim takes the oldest claimable one.
    const next = await api('POST', '/claim', a.auth, {});
    expect(next.body.data.schedule_id).toBe(ids[0]);
    expect((await api('GET', '/due', a.auth)).body.data.occurrences.map((o: any) => o.schedule_id)).toEqual(
      ids.slice(1),
    );
  });

  it('orders due occurrences by the coalesced due_at, which differs from next_due_at order across intervals', async () => {
    const a = await scheduleAccount(stack.db, 'coalesced-order');
    // next_due_at order: hourly (-230 min), two-hourly (-180 min), hourly (-20 min).
    const hourlyOld = await makeSchedule(stack.db, a, { everySeconds: 3600, dueMinutesAgo: 230 }); // due -50 min, 3 skipped
    const twoHourly = await makeSchedule(stack.db, a, { everySeconds: 7200, dueMinutesAgo: 180 }); // due -60 min, 1 skipped
    const hourlyNew = await makeSchedule(stack.db, a, { everySeconds: 3600, dueMinutesAgo: 20 }); // due -20 min
    const byNext = [hourlyOld, twoHourly, hourlyNew]
      .sort((x, y) => x.next_due_at.getTime() - y.next_due_at.getTime())
      .map((x) => x._id);
    expect(byNext).toEqual([hourlyOld._id, twoHourly._id, hourlyNew._id]);

    const first = await api('GET', '/due?limit=2', a.auth);
    expect(first.body.data.occurrences.map((o: any) => [o.schedule_id, o.skipped_occurrences])).toEqual([
      [twoHourly._id, 1],
      [hourlyOld._id, 3],
    ]);
    const [o1, o2] = first.body.data.occurrences;
    expect(Date.parse(o1.due_at)).toBe(twoHourly.next_due_at.getTime() + 7200_000);
    expect(Date.parse(o2.due_at)).toBe(hourlyOld.next_due_at.getTime() + 3 * 3600_000);
    expect(Date.parse(o1.due_at)).toBeLessThan(Date.parse(o2.due_at));
    const second = await api('GET', `/due?limit=2&cursor=${first.body.data.next_cursor}`, a.auth);
    expect(second.body.data.occurrences.map((o: any) => o.schedule_id)).toEqual([hourlyNew._id]);
    expect(second.body.data.next_cursor).toBeNull();

    // A "next due" claim takes the oldest coalesced occurrence, not the oldest next_due_at.
    const next = await api('POST', '/claim', a.auth, {});
    expect(next.body.data).toMatchObject({ schedule_id: twoHourly._id, due_at: o1.due_at, skipped_occurrences: 1 });
    expect((await api('GET', '/due', a.auth)).body.data.occurrences.map((o: any) => o.schedule_id)).toEqual([
      hourlyOld._id,
      hourlyNew._id,
    ]);
  });

  it('release and advance answer the spec bodies exactly; a repeated advance changes nothing', async () => {
    const s = await makeSchedule(stack.db, acct, { dueMinutesAgo: 5 });
    const c1 = await claim(s._id);
    expect(c1.lease_expires_at).toBeDefined();
    const rel = await api(
      'POST',
      `/${s._id}/release`,
      acct.auth,
      { due_at: c1.due_at, claim_token: c1.claim_token, note: 'not now' },
      { 'x-request-id': 'rel-1' },
    );
    expect(rel.status).toBe(200);
    expect(Object.keys(rel.body).sort()).toEqual(['data', 'help_doc', 'help_url', 'request_id', 'success']);
    expect(Object.keys(rel.body.data).sort()).toEqual(['released', 'schedule']);
    expect(rel.body).toMatchObject({
      success: true,
      request_id: 'rel-1',
      data: {
        released: true,
        schedule: { schedule_id: s._id, next_due_at: s.next_due_at.toISOString(), claim: null, last_run_at: null },
      },
    });
    expect(await repo.claimEnd(`${s._id}:${s.next_due_at.toISOString()}:0`)).toMatchObject({
      kind: 'released',
      reason: 'released_by_holder',
      note: 'not now',
    });
    expect((await api('GET', '/due', acct.auth)).body.data.occurrences.map((o: any) => o.schedule_id)).toContain(s._id);

    const c2 = await claim(s._id);
    const body = {
      due_at: c2.due_at,
      claim_token: c2.claim_token,
      outcome: 'success',
      external_run_id: 'run-42',
      note: 'fine',
    };
    const adv = await api('POST', `/${s._id}/advance`, acct.auth, body);
    expect(adv.status).toBe(200);
    expect(Object.keys(adv.body).sort()).toEqual(['data', 'help_doc', 'help_url', 'request_id', 'success']);
    expect(Object.keys(adv.body.data).sort()).toEqual(['already_advanced', 'schedule']);
    expect(adv.body.data.already_advanced).toBe(false);
    const after = adv.body.data.schedule;
    expect(after).toMatchObject({
      next_due_at: new Date(new Date(c2.due_at).getTime() + 3600_000).toISOString(),
      last_outcome: 'success',
      last_external_run_id: 'run-42',
      last_note: 'fine',
      last_due_at: c2.due_at,
      advance_count: 1,
      claim: null,
    });
    expect(Date.parse(after.last_run_at)).toBeGreaterThan(Date.now() - 60_000);

    const again = await api('POST', `/${s._id}/advance`, acct.auth, {
      ...body,
      outcome: 'failed',
      note: 'changed my mind',
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ schedule: after, already_advanced: true });
    expect((await repo.history(s._id)).length).toBe(1);
  });

  it('answers each 409 in the gateway shape: due_at_mismatch, claim_required, claim_mismatch, claim_expired', async () => {
    const s = await makeSchedule(stack.db, acct, { dueMinutesAgo: 2 });
    const h = { 'x-request-id': 'conflict-1' };
    // claim_required: an advance with no claim at all.
    expectConflict(
      await api(
        'POST',
        `/${s._id}/advance`,
        acct.auth,
        { due_at: s.next_due_at.toISOString(), claim_token: 'clm_never' },
        h,
      ),
      'claim_required',
      'conflict-1',
    );
    const c = await claim(s._id);
    // due_at_mismatch on both.
    const wrongDue = new Date(Date.parse(c.due_at) + 60_000).toISOString();
    expectConflict(
      await api('POST', `/${s._id}/advance`, acct.auth, { due_at: wrongDue, claim_token: c.claim_token }, h),
      'due_at_mismatch',
      'conflict-1',
    );
    expectConflict(
      await api('POST', `/${s._id}/release`, acct.auth, { due_at: wrongDue, claim_token: c.claim_token }),
      'due_at_mismatch',
    );
    // claim_mismatch: someone else holds it.
    expectConflict(
      await api('POST', `/${s._id}/advance`, acct.auth, { due_at: c.due_at, claim_token: 'clm_someone_else' }),
      'claim_mismatch',
    );
    expectConflict(
      await api('POST', `/${s._id}/release`, acct.auth, { due_at: c.due_at, claim_token: 'clm_someone_else' }),
      'claim_mismatch',
    );
    // claim_required again after the holder released its own claim.
    await api('POST', `/${s._id}/release`, acct.auth, { due_at: c.due_at, claim_token: c.claim_token });
    expectConflict(
      await api('POST', `/${s._id}/advance`, acct.auth, { due_at: c.due_at, claim_token: c.claim_token }),
      'claim_required',
    );
    // claim_mismatch: release after this claim advanced.
    const d = await claim(s._id);
    expect(
      (await api('POST', `/${s._id}/advance`, acct.auth, { due_at: d.due_at, claim_token: d.claim_token })).status,
    ).toBe(200);
    expectConflict(
      await api('POST', `/${s._id}/release`, acct.auth, { due_at: d.due_at, claim_token: d.claim_token }),
      'claim_mismatch',
    );

    // claim_expired, and the stale holder after someone else re-claimed.
    const t = await makeSchedule(stack.db, acct, { dueMinutesAgo: 2 });
    const old = await claim(t._id, 1);
    await sleep(1100);
    expectConflict(
      await api('POST', `/${t._id}/advance`, acct.auth, { due_at: old.due_at, claim_token: old.claim_token }),
      'claim_expired',
    );
    const fresh = await claim(t._id, 60);
    expect(fresh.claim_token).not.toBe(old.claim_token);
    const stale = { due_at: old.due_at, claim_token: old.claim_token };
    expectConflict(await api('POST', `/${t._id}/advance`, acct.auth, stale), 'claim_expired');
    expectConflict(await api('POST', `/${t._id}/release`, acct.auth, stale), 'claim_expired');
    const ok = await api('POST', `/${t._id}/advance`, acct.auth, {
      due_at: fresh.due_at,
      claim_token: fresh.claim_token,
      outcome: 'skipped',
    });
    expect(ok.body.data).toMatchObject({
      already_advanced: false,
      schedule: { advance_count: 1, last_outcome: 'skipped', last_run_at: null },
    });
    expectConflict(await api('POST', `/${t._id}/advance`, acct.auth, stale), 'claim_expired');
    expect((await repo.get(t._id))!.advance_count).toBe(1);
  });

  it('refuses to claim what is not due or already claimed (409)', async () => {
    const future = await makeSchedule(stack.db, acct, { cron: '0 0 1 1 *', timezone: 'America/New_York' });
    expectConflict(await api('POST', '/claim', acct.auth, { schedule_id: future._id }), 'occurrence_not_due');
    const s = await makeSchedule(stack.db, acct);
    await claim(s._id);
    const res = await api('POST', '/claim', acct.auth, { schedule_id: s._id });
    expectConflict(res, 'occurrence_claimed');
    expect(res.body.details.lease_expires_at).toEqual(expect.any(String));
  });

  it('coalesces missed occurrences to the latest due one and reports how many were skipped', async () => {
    const a = await scheduleAccount(stack.db, 'catchup');
    const s = await makeSchedule(stack.db, a, { everySeconds: 600, dueMinutesAgo: 65 }); // 7 occurrences due: -65 … -5 min
    const due = (await api('GET', '/due', a.auth)).body.data.occurrences[0];
    expect(due).toMatchObject({
      schedule_id: s._id,
      skipped_occurrences: 6,
      due_at: new Date(s.next_due_at.getTime() + 6 * 600_000).toISOString(),
    });
    const c = (await api('POST', '/claim', a.auth, {})).body.data;
    expect(c).toMatchObject({ due_at: due.due_at, skipped_occurrences: 6 });
    const adv = await api('POST', `/${s._id}/advance`, a.auth, { due_at: c.due_at, claim_token: c.claim_token });
    expect(Date.parse(adv.body.data.schedule.next_due_at)).toBeGreaterThan(Date.now());
    expect((await api('GET', '/due', a.auth)).body.data.occurrences).toEqual([]);
  });

  it('a lease that runs out with nobody calling puts the occurrence back in due at its expiry; a claim then succeeds and the stale token is refused', async () => {
    const a = await scheduleAccount(stack.db, 'expiry');
    const s = await makeSchedule(stack.db, a, { dueMinutesAgo: 3 });
    // Room for the reads "while held" to be answered before the expiry on a loaded machine; each
    // checks that it was (as_of), so none passes vacuously.
    const held = (await api('POST', '/claim', a.auth, { lease_seconds: 8 })).body.data;
    expect(held.schedule_id).toBe(s._id);
    const expiresAt = Date.parse(held.lease_expires_at);
    const heldRead = async () => {
      const data = (await api('GET', '/due', a.auth)).body.data;
      expect(Date.parse(data.as_of)).toBeLessThan(expiresAt);
      return data.occurrences.map((o: any) => o.schedule_id);
    };
    const listed = async () => (await api('GET', '/due', a.auth)).body.data.occurrences.map((o: any) => o.schedule_id);
    expect(await heldRead()).toEqual([]);
    expectConflict(await api('POST', '/claim', a.auth, {}), 'occurrence_not_due');
    // Nothing is called in between: no release, no advance, no claim.
    await sleep(Math.max(0, expiresAt - Date.now() - 3000));
    expect(await heldRead()).toEqual([]);
    await sleep(Math.max(0, expiresAt - Date.now()) + 50);
    // The first read after the expiry lists it: no timer or sweep has to run first.
    const due = (await api('GET', '/due', a.auth)).body.data;
    expect(due.occurrences).toMatchObject([{ schedule_id: s._id, due_at: held.due_at }]);
    expect(Date.parse(due.as_of)).toBeGreaterThanOrEqual(expiresAt);
    expect(Date.parse(due.as_of)).toBeLessThan(expiresAt + 10_000);
    // The holder's token is refused by the clock; a "next due" claim takes the occurrence over.
    const stale = { due_at: held.due_at, claim_token: held.claim_token };
    expectConflict(await api('POST', `/${s._id}/advance`, a.auth, stale), 'claim_expired');
    const next = (await api('POST', '/claim', a.auth, { lease_seconds: 60 })).body.data;
    expect(next).toMatchObject({ schedule_id: s._id, due_at: held.due_at });
    expect(next.claim_token).not.toBe(held.claim_token);
    expect(await repo.claimEnd(`${s._id}:${s.next_due_at.toISOString()}:0`)).toMatchObject({
      kind: 'expired',
      reason: 'superseded_after_expiry',
    });
    expect(await listed()).toEqual([]);
    expectConflict(await api('POST', `/${s._id}/release`, a.auth, stale), 'claim_expired');
    expectConflict(await api('POST', `/${s._id}/advance`, a.auth, stale), 'claim_expired');
    const done = await api('POST', `/${s._id}/advance`, a.auth, {
      due_at: next.due_at,
      claim_token: next.claim_token,
      outcome: 'success',
    });
    expect(done.body.data).toMatchObject({ already_advanced: false, schedule: { advance_count: 1, claim: null } });
    expectConflict(await api('POST', `/${s._id}/advance`, a.auth, stale), 'claim_expired');
    // The schedule stands at the next occurrence; the handled one is never due again.
    expect((await repo.get(s._id))!.next_due_at.toISOString()).toEqual(done.body.data.schedule.next_due_at);
  });

  it("a claimed occurrence stays the schedule's current one through claim and release, left out of due while held; a claim answers the schedule's claim in advance and release", async () => {
    const a = await scheduleAccount(stack.db, 'held');
    const s = await makeSchedule(stack.db, a, { dueMinutesAgo: 3 });
    const current = async () => (await repo.get(s._id))!.next_due_at.toISOString();
    const listed = async () => (await api('GET', '/due', a.auth)).body.data.occurrences.map((o: any) => o.schedule_id);
    const c = (await api('POST', '/claim', a.auth, { schedule_id: s._id, lease_seconds: 60 })).body.data;
    expect(await current()).toEqual(s.next_due_at.toISOString());
    expect(await listed()).toEqual([]);
    await api('POST', `/${s._id}/release`, a.auth, { due_at: c.due_at, claim_token: c.claim_token });
    expect(await current()).toEqual(s.next_due_at.toISOString());
    expect(await listed()).toEqual([s._id]);
    const d = (await api('POST', '/claim', a.auth, { schedule_id: s._id, lease_seconds: 60 })).body.data;
    const other = (await api('POST', '/claim', a.auth, { schedule_id: s._id })).body;
    expect(other.error).toBe('occurrence_claimed');
    const rel = await api('POST', `/${s._id}/release`, a.auth, { due_at: d.due_at, claim_token: d.claim_token });
    const again = await api('POST', `/${s._id}/release`, a.auth, { due_at: d.due_at, claim_token: d.claim_token });
    expect(again.body.data).toEqual(rel.body.data);
    expect(rel.body.data.schedule.claim).toBeNull();
  });

  it('moves timing across DST in America/New_York and Europe/Berlin (service clock at the occurrence)', async () => {
    const cases = [
      {
        tz: 'America/New_York',
        cron: '30 2 * * *',
        created: '2026-03-07T12:00:00Z',
        due: ['2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z'],
      }, // spring forward
      {
        tz: 'America/New_York',
        cron: '30 1 * * *',
        created: '2026-10-31T12:00:00Z',
        due: ['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z'],
      }, // fall back
      {
        tz: 'Europe/Berlin',
        cron: '0 9 * * *',
        created: '2026-10-24T06:00:00Z',
        due: ['2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z'],
      }, // CEST → CET
    ];
    for (const k of cases) {
      const s = await makeSchedule(stack.db, acct, { cron: k.cron, timezone: k.tz, now: new Date(k.created) });
      expect(s.next_due_at.toISOString()).toBe(k.due[0]);
      let clock = new Date(Date.parse(k.due[0]) + 30_000);
      const service = new ScheduleService(repo, stack.config.scheduleLease, () => clock);
      const c = await service.claim(acct.budgetId, { schedule_id: s._id, lease_seconds: 300 });
      expect(c.claim.due_at.toISOString()).toBe(k.due[0]);
      clock = new Date(clock.getTime() + 60_000);
      const { schedule } = await service.advance(acct.budgetId, s._id, {
        due_at: c.claim.due_at,
        claim_token: c.claim.claim_token,
        outcome: 'success',
      });
      expect(schedule.next_due_at.toISOString()).toBe(k.due[1]);
    }
  });
});
