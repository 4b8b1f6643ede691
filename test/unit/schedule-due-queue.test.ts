import { orderQueue } from '../../shared/schedules/due-queue';
import { buildSchedule } from '../../shared/schedules/new-schedule';
import type { Schedule } from '../../shared/schedules/repository';

const NOW = new Date('2026-11-23T12:00:00.000Z');
const min = (m: number) => new Date(NOW.getTime() + m * 60_000);

function schedule(budgetId: string, everySeconds: number, startAt: Date, id?: string): Schedule {
  const built = buildSchedule(
    { budgetId, workspaceId: 'ws_1', workflowId: 'wf_1', everySeconds, timezone: 'UTC', startAt },
    NOW,
  );
  if ('problem' in built) throw new Error(built.problem);
  return id ? { ...built.schedule, _id: id } : built.schedule;
}

describe('the order of due occurrences', () => {
  it('orders by the coalesced due_at at read time, then schedule id, and leaves out what is not due', () => {
    const hourlyOld = schedule('bud_a', 3600, min(-230), 'sch_c'); // due -50
    const twoHourly = schedule('bud_a', 7200, min(-180), 'sch_b'); // due -60
    const tieA = schedule('bud_a', 3600, min(-20), 'sch_z'); // due -20
    const tieB = schedule('bud_a', 1800, min(-20), 'sch_a'); // due -20
    const future = schedule('bud_a', 3600, min(5), 'sch_f');
    const order = orderQueue([hourlyOld, twoHourly, tieA, tieB, future], NOW);
    expect(order.map((o) => [o.schedule._id, o.due_at.toISOString(), o.skipped])).toEqual([
      ['sch_b', min(-60).toISOString(), 1],
      ['sch_c', min(-50).toISOString(), 3],
      ['sch_a', min(-20).toISOString(), 0],
      ['sch_z', min(-20).toISOString(), 0],
    ]);
  });

  it("coalesces at the reader's clock: the later the read, the later the occurrence and the more skipped", () => {
    const s = schedule('bud_a', 600, min(-65), 'sch_h'); // -65, -55, …, -5 min
    expect(orderQueue([s], NOW).map((o) => [o.due_at.toISOString(), o.skipped])).toEqual([[min(-5).toISOString(), 6]]);
    expect(orderQueue([s], min(60)).map((o) => [o.due_at.toISOString(), o.skipped])).toEqual([
      [min(55).toISOString(), 12],
    ]);
  });
});
