import { PauseReads } from '../../shared/schedules/pause-reads';

/** A fetch the test settles by hand, counting the reads sent. */
function fixture() {
  let t = 100;
  const sent: Array<{ budget: string; at: number; settle(rows: Array<[string, Date]>): void; fail(): void }> = [];
  const reads = new PauseReads(
    (budget) =>
      new Promise((resolve, reject) =>
        sent.push({ budget, at: t, settle: (rows) => resolve(new Map(rows)), fail: () => reject(new Error('down')) }),
      ),
    () => t,
  );
  return { reads, sent, tick: (ms = 1) => (t += ms) };
}

describe('PauseReads: one read of a budget serves every caller that began before it', () => {
  it('callers that began before a read share it; a caller that began after it sends its own', async () => {
    const f = fixture();
    const a = f.reads.now();
    const b = f.reads.now();
    f.tick();
    const ra = f.reads.pausesOf('bud_1', a);
    const rb = f.reads.pausesOf('bud_1', b);
    expect(f.sent).toHaveLength(1);
    const c = f.reads.now(); // began at the read's own instant: it may predate the read, so not shared
    const rc = f.reads.pausesOf('bud_1', c);
    expect(f.sent).toHaveLength(2);
    const paused = new Date();
    f.sent[0].settle([['sch_1', paused]]);
    f.sent[1].settle([]);
    expect((await ra).get('sch_1')).toBe(paused);
    expect(await rb).toBe(await ra);
    expect((await rc).size).toBe(0);
  });

  it('keeps budgets apart, and a settled read still serves callers that began before it', async () => {
    const f = fixture();
    const since = f.reads.now();
    f.tick();
    const one = f.reads.pausesOf('bud_1', since);
    f.reads.pausesOf('bud_2', since);
    expect(f.sent.map((s) => s.budget)).toEqual(['bud_1', 'bud_2']);
    f.sent[0].settle([]);
    await one;
    f.tick();
    expect(await f.reads.pausesOf('bud_1', since)).toBe(await one);
    expect(f.sent).toHaveLength(2);
  });

  it('a failed read is not served again', async () => {
    const f = fixture();
    const since = f.reads.now();
    f.tick();
    const failed = f.reads.pausesOf('bud_1', since);
    f.sent[0].fail();
    await expect(failed).rejects.toThrow('down');
    f.reads.pausesOf('bud_1', since);
    expect(f.sent).toHaveLength(2);
  });
});
