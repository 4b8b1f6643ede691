import { pauseSchedule, resumeSchedule } from '../../shared/schedules/lifecycle';
import { buildSchedule } from '../../shared/schedules/new-schedule';
import { type Schedule, ScheduleRepository } from '../../shared/schedules/repository';
import { ScheduleService } from '../../shared/schedules/service';
import { openTestDb } from '../support/db';

const BOUNDS = { minSeconds: 1, maxSeconds: 3600, defaultSeconds: 300 };
const ROUNDS = 8;

/**
 * A pause is the operator's word: once acknowledged, nothing of the schedule is claimed until it is
 * resumed, whatever advances land beside it. On FerretDB an update is a read and then a write of
 * the whole document, so a flag set on the schedule document can be undone by an advance applied
 * at the same moment; these tests race the two on the real store.
 */
describe('schedule pauses against the real store', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let repo: ScheduleRepository;
  let n = 0;

  beforeAll(async () => {
    db = await openTestDb();
    repo = new ScheduleRepository(db.models);
  });
  afterAll(async () => db?.drop());

  const budget = () => `bud_pause${++n}`;
  async function dueSchedule(budgetId: string, t0: number, everySeconds: number, ageMs: number): Promise<Schedule> {
    const built = buildSchedule(
      {
        budgetId,
        workspaceId: 'ws_pause',
        workflowId: 'wf_pause',
        everySeconds,
        timezone: 'UTC',
        startAt: new Date(t0 - ageMs),
      },
      new Date(t0),
    );
    if ('problem' in built) throw new Error(built.problem);
    return repo.create(built.schedule);
  }

  it('a pause acknowledged while advances land at the same moment holds: no schedule is claimable afterwards, every pause survives', async () => {
    for (let round = 0; round < ROUNDS; round++) await raceRound();
  });

  let spreadMs = 40;
  async function raceRound() {
    const b = budget();
    const t0 = Date.now();
    const N = 30;
    const schedules = await Promise.all(Array.from({ length: N }, (_, i) => dueSchedule(b, t0, 60, 30_000 + i)));
    const holder = new ScheduleService(repo, BOUNDS, () => new Date(t0));
    const claims = await Promise.all(schedules.map((s) => holder.claim(b, { schedule_id: s._id, lease_seconds: 300 })));
    const read = await Promise.all(schedules.map((s) => repo.get(s._id)));
    // The advance is two writes (its end, then the apply that rewrites the schedule): each pause is
    // sent at its own moment across the time 30 advances at once take, so some land between the
    // apply's read and its write.
    const started = Date.now();
    const advances = claims.map(({ claim: c }) =>
      holder.advance(b, c.schedule_id, { due_at: c.due_at, claim_token: c.claim_token, outcome: 'success' }),
    );
    const pauses = read.map(async (s, i) => {
      await new Promise((r) => setTimeout(r, (i * spreadMs) / N));
      return pauseSchedule(repo, s!, new Date(t0));
    });
    await Promise.all([...advances, ...pauses]);
    spreadMs = Math.max(10, Date.now() - started);
    const after = await Promise.all(schedules.map((s) => repo.get(s._id)));
    // Neither write undoes the other: every pause holds, every advance is applied.
    expect({
      pauseLost: after.filter((s) => !s?.paused).map((s) => s?._id),
      advanceLost: after.filter((s) => s?.advance_count !== 1).map((s) => s?._id),
    }).toEqual({ pauseLost: [], advanceLost: [] });
    // Long after the next occurrences: a fresh process finds nothing due and claims nothing.
    const later = new ScheduleService(repo, BOUNDS, () => new Date(t0 + 3_600_000));
    expect((await later.due(b, { limit: 100 })).items).toEqual([]);
    await expect(later.claim(b, { lease_seconds: 60 })).rejects.toMatchObject({ code: 'occurrence_not_due' });
    for (const s of schedules.slice(0, 3))
      await expect(later.claim(b, { schedule_id: s._id, lease_seconds: 60 })).rejects.toMatchObject({
        code: 'occurrence_not_due',
      });
  }

  it('a "next due" claim from a due read taken before the pause does not claim the paused schedule', async () => {
    const b = budget();
    const t0 = Date.now();
    const older = await dueSchedule(b, t0, 3600, 60_000);
    const paused = await dueSchedule(b, t0, 3600, 30_000);
    const claimer = new ScheduleService(repo, BOUNDS, () => new Date(t0));
    // This claim's due read (both schedules) is reused by the next claim of this process.
    expect((await claimer.claim(b, { lease_seconds: 60 })).claim.schedule_id).toBe(older._id);
    await pauseSchedule(repo, (await repo.get(paused._id))!, new Date(t0));
    await expect(claimer.claim(b, { lease_seconds: 60 })).rejects.toMatchObject({ code: 'occurrence_not_due' });
    // Resumed, it is claimable again at its next occurrence.
    const resumed = await resumeSchedule(repo, (await repo.get(paused._id))!, new Date(t0 + 1000));
    expect(resumed.paused).toBe(false);
    const later = new ScheduleService(repo, BOUNDS, () => new Date(resumed.next_due_at.getTime() + 1000));
    expect((await later.claim(b, { schedule_id: paused._id, lease_seconds: 60 })).claim.schedule_id).toBe(paused._id);
  });
});
