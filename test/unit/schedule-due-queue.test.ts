import { buildSchedule } from '../../shared/schedules/new-schedule';
import { dueEntry, dueKeyRange, dueQueueKey, heldQueueKey, orderQueue } from '../../shared/schedules/due-queue';
import type { Schedule } from '../../shared/schedules/repository';

const NOW = new Date('2026-11-23T12:00:00.000Z');
const min = (m: number) => new Date(NOW.getTime() + m * 60_000);

function schedule(budgetId: string, everySeconds: number, startAt: Date, id?: string): Schedule {
  const built = buildSchedule({ budgetId, workspaceId: 'ws_1', workflowId: 'wf_1', everySeconds, timezone: 'UTC', startAt }, NOW);
  if ('problem' in built) throw new Error(built.problem);
  return id ? { ...built.schedule, _id: id } : built.schedule;
}

describe('due queue entries and their order', () => {
  it('keys a budget\'s due entries into one _id range that excludes other budgets and future occurrences', () => {
    const r = dueKeyRange('bud_a', NOW);
    const inRange = (k: string) => k >= r.$gte && k < r.$lt;
    expect(inRange(dueQueueKey('bud_a', min(-60), 'sch_1'))).toBe(true);
    expect(inRange(dueQueueKey('bud_a', NOW, 'sch_2'))).toBe(true);
    expect(inRange(dueQueueKey('bud_a', min(1), 'sch_3'))).toBe(false);
    expect(inRange(dueQueueKey('bud_ab', min(-60), 'sch_4'))).toBe(false);
    expect(inRange(dueQueueKey('bud_a-x', min(-60), 'sch_5'))).toBe(false);
    expect(inRange(dueQueueKey('bud_', min(-60), 'sch_6'))).toBe(false);
  });

  it('records the catch-up as of the time it is queued (the lease\'s expiry for a held entry)', () => {
    const s = schedule('bud_a', 600, min(-65)); // -65, -55, …, -5 min
    expect(dueEntry(s, 'expired', NOW)).toMatchObject({ _id: dueQueueKey('bud_a', min(-65), s._id), due_at: min(-5), skipped: 6, as_of: NOW, reason: 'expired' });
    expect(dueEntry(s, 'expired', min(60))).toMatchObject({ due_at: min(55), skipped: 12 });
    expect(dueEntry(schedule('bud_a', 600, min(30)), 'scheduled', NOW)).toMatchObject({ due_at: min(30), skipped: 0 });
  });

  it('orders by the coalesced due_at at read time, then schedule id, and leaves out what is not due', () => {
    const hourlyOld = schedule('bud_a', 3600, min(-230), 'sch_c'); // due -50
    const twoHourly = schedule('bud_a', 7200, min(-180), 'sch_b'); // due -60
    const tieA = schedule('bud_a', 3600, min(-20), 'sch_z'); // due -20
    const tieB = schedule('bud_a', 1800, min(-20), 'sch_a'); // due -20
    const future = schedule('bud_a', 3600, min(5), 'sch_f');
    const entries = [hourlyOld, twoHourly, tieA, tieB, future].map((s) => dueEntry(s, 'scheduled', s.created_at));
    const order = orderQueue(entries, NOW);
    expect(order.map((o) => [o.entry.schedule_id, o.due_at.toISOString(), o.skipped])).toEqual([
      ['sch_b', min(-60).toISOString(), 1],
      ['sch_c', min(-50).toISOString(), 3],
      ['sch_a', min(-20).toISOString(), 0],
      ['sch_z', min(-20).toISOString(), 0],
    ]);
  });

  it('keys a held occurrence at its lease expiry: out of the due range before that instant, in it from then on; one key per claim', () => {
    const held = (expires: Date, token = 'clm_eA.abc-_1') => heldQueueKey({ budget_id: 'bud_a', lease_expires_at: expires, schedule_id: 'sch_1', claim_token: token });
    const inRange = (k: string, now: Date) => k >= dueKeyRange('bud_a', now).$gte && k < dueKeyRange('bud_a', now).$lt;
    const expires = min(5);
    expect(inRange(held(expires), new Date(expires.getTime() - 1))).toBe(false);
    expect(inRange(held(expires), expires)).toBe(true);
    expect(inRange(held(expires), min(60))).toBe(true);
    expect(inRange(heldQueueKey({ budget_id: 'bud_ab', lease_expires_at: min(-5), schedule_id: 'sch_1', claim_token: 'clm_x.y' }), NOW)).toBe(false);
    // Two claimers in the same millisecond with the same lease never share a key.
    expect(held(expires, 'clm_eA.one')).not.toBe(held(expires, 'clm_eA.two'));
  });

  it('lists an occurrence once when it has its base entry and held entries of expired claims', () => {
    const s = schedule('bud_a', 600, min(-65), 'sch_h');
    const other = schedule('bud_a', 600, min(-30), 'sch_o');
    const base = dueEntry(s, 'released', NOW);
    const held1 = { ...dueEntry(s, 'expired', min(-10)), _id: 'bud_a:held-1' };
    const held2 = { ...dueEntry(s, 'expired', min(-1)), _id: 'bud_a:held-2' };
    const order = orderQueue([held1, dueEntry(other, 'scheduled', NOW), base, held2], NOW);
    expect(order.map((o) => [o.entry.schedule_id, o.due_at.toISOString(), o.skipped])).toEqual([
      ['sch_h', min(-5).toISOString(), 6],
      ['sch_o', NOW.toISOString(), 3],
    ]);
  });
});
