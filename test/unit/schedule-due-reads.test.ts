import {
  CLAIM_READ_MAX_AGE_MS,
  CLAIM_READ_MAX_REUSE_MS,
  CLAIM_READ_REUSE_PER_READ_TIME,
  DueReads,
  reuseMs,
} from '../../shared/schedules/due-reads';
import type { Schedule } from '../../shared/schedules/repository';

const T0 = Date.parse('2026-11-24T09:00:00Z');
const due = (id: string) =>
  ({
    _id: id,
    budget_id: 'bud_1',
    paused: false,
    next_due_at: new Date(T0 - 60_000),
    every_seconds: 3600,
    timezone: 'UTC',
  }) as unknown as Schedule;

/** A store read that takes `tookMs` (fake clock) and answers the schedules due at the time it is asked. */
function fakeStore(tookMs: () => number, rows: () => Schedule[]) {
  const reads: number[] = [];
  const read = (_budget: string, _now: Date) => {
    reads.push(Date.now());
    const answer = rows();
    return new Promise<Schedule[]>((resolve) => setTimeout(() => resolve(answer), tookMs()));
  };
  return { reads, read };
}

describe('due reads shared by "next due" claims (DueReads)', () => {
  beforeEach(() => jest.useFakeTimers({ now: T0 }));
  afterEach(() => jest.useRealTimers());

  it('reuses a read for a multiple of its duration, within the bounds', () => {
    expect(reuseMs(10)).toBe(CLAIM_READ_MAX_AGE_MS);
    expect(reuseMs(500)).toBe(CLAIM_READ_REUSE_PER_READ_TIME * 500);
    expect(reuseMs(60_000)).toBe(CLAIM_READ_MAX_REUSE_MS);
  });

  it('a quick read is reused for CLAIM_READ_MAX_AGE_MS; then claimers start a new one and go on with the landed one meanwhile', async () => {
    let rows = [due('sch_a')];
    const store = fakeStore(
      () => 20,
      () => rows,
    );
    const reads = new DueReads(store.read);
    const first = reads.forClaims('bud_1', new Date());
    await jest.advanceTimersByTimeAsync(20);
    expect((await first).ordered.map((o) => o.schedule._id)).toEqual(['sch_a']);
    rows = [due('sch_a'), due('sch_b')];
    await jest.advanceTimersByTimeAsync(CLAIM_READ_MAX_AGE_MS - 100);
    expect((await reads.forClaims('bud_1', new Date())).ordered).toHaveLength(1);
    expect(store.reads).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(200);
    // Older than its reuse time: a new read starts, and this claimer works from the landed one meanwhile.
    expect((await reads.forClaims('bud_1', new Date())).ordered).toHaveLength(1);
    expect(store.reads).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(20);
    expect((await reads.forClaims('bud_1', new Date())).ordered.map((o) => o.schedule._id)).toEqual(['sch_a', 'sch_b']);
    expect(store.reads).toHaveLength(2);
  });

  it('a slow read (a large backlog) is reused longer, so the store is not kept reading; `fresh` and `due` never reuse', async () => {
    const tookMs = 600;
    const store = fakeStore(
      () => tookMs,
      () => [due('sch_a')],
    );
    const reads = new DueReads(store.read);
    const first = reads.forClaims('bud_1', new Date());
    await jest.advanceTimersByTimeAsync(tookMs);
    const landed = await first;
    await jest.advanceTimersByTimeAsync(reuseMs(tookMs) - tookMs - 100);
    // Still within 4 × 600 ms: the same read, no store read (with the old fixed 1 s it read again here).
    const reused = await reads.forClaims('bud_1', new Date());
    expect(reused.startedAt).toBe(landed.startedAt);
    expect(reused.ordered).toBe(landed.ordered);
    expect(store.reads).toHaveLength(1);
    const fresh = reads.forClaims('bud_1', new Date(), true);
    expect(store.reads).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(tookMs);
    expect((await fresh).startedAt).toBeGreaterThan(landed.startedAt);
    const forDue = reads.forDue('bud_1', new Date());
    expect(store.reads).toHaveLength(3);
    await jest.advanceTimersByTimeAsync(tookMs);
    await expect(forDue).resolves.toHaveLength(1);
  });
});
