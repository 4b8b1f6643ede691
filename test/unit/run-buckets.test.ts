import {
  bucketEntries,
  hourKey,
  newestFirst,
  nextRead,
  READ_RUNS,
  runBucketKeys,
  sliceKey,
} from '../../shared/webhook-runs/run-buckets';
import { runDoc } from '../support/run-doc';

const at = new Date('2026-11-29T14:59:59.999Z');
const run = runDoc({ _id: 'run_a', workspace_id: 'ws_1', workflow_id: 'wf_x', group_id: 'grp_y', created_at: at });

describe('run buckets', () => {
  it('files a run under its ten minutes, its hour and its day; the next millisecond under the next ones', () => {
    expect(runBucketKeys(run)).toEqual(['ws_1|2026-11-29T14:50', 'ws_1|2026-11-29T14', 'ws_1|2026-11-29']);
    const next = new Date(at.getTime() + 1);
    expect(sliceKey('ws_1', next)).toBe('ws_1|2026-11-29T15:00');
    expect(hourKey('ws_1', next)).toBe('ws_1|2026-11-29T15');
  });

  it("adds the day's failed-callback key while its callback has failed", () => {
    expect(runBucketKeys({ ...run, callback_status: 'failed' })).toEqual([
      'ws_1|2026-11-29T14:50',
      'ws_1|2026-11-29T14',
      'ws_1|2026-11-29',
      'ws_1|2026-11-29|callback-failed',
    ]);
    expect(runBucketKeys({ ...run, callback_status: 'delivered' })).toHaveLength(3);
  });

  it('names the directory entries of its day (under the workspace) and its hour (under the day)', () => {
    expect(bucketEntries(run)).toEqual([
      { _id: 'd|ws_1|2026-11-29', parent: 'ws_1', at: new Date('2026-11-29T00:00:00.000Z') },
      { _id: 'h|ws_1|2026-11-29T14', parent: 'ws_1|2026-11-29', at: new Date('2026-11-29T14:00:00.000Z') },
    ]);
  });

  it('orders runs newest first, the larger id first at the same instant', () => {
    const t = new Date('2026-11-29T10:00:00Z');
    const runs = [
      { _id: 'run_b', created_at: t },
      { _id: 'run_c', created_at: new Date(t.getTime() + 1) },
      { _id: 'run_d', created_at: t },
      { _id: 'run_a', created_at: new Date(t.getTime() - 1) },
    ];
    expect(runs.sort(newestFirst).map((r) => r._id)).toEqual(['run_c', 'run_d', 'run_b', 'run_a']);
  });

  describe('the next read of a page', () => {
    it('reads a slice first: nothing read says how full an hour is', () => {
      expect(nextRead({ slicesRead: 0, runsRead: 0, hoursInDay: 1 })).toBe('slice');
    });

    it('reads the rest of the hour once six slices at the rate seen hold at most READ_RUNS', () => {
      const atLimit = READ_RUNS / 6;
      expect(nextRead({ slicesRead: 1, runsRead: atLimit, hoursInDay: 24 })).toBe('hour');
      expect(nextRead({ slicesRead: 1, runsRead: atLimit + 1, hoursInDay: 24 })).toBe('slice');
    });

    it("reads the rest of the day only after an hour of reads, costed at the day's every hour", () => {
      // Nothing found in five slices: still no day read, however quiet.
      expect(nextRead({ slicesRead: 5, runsRead: 0, hoursInDay: 24 })).toBe('hour');
      expect(nextRead({ slicesRead: 6, runsRead: 0, hoursInDay: 24 })).toBe('day');
      // 10 runs an hour over a 12-hour day is exactly READ_RUNS; a 13th hour tips it to an hour read.
      expect(nextRead({ slicesRead: 6, runsRead: 10, hoursInDay: 12 })).toBe('day');
      expect(nextRead({ slicesRead: 6, runsRead: 10, hoursInDay: 13 })).toBe('hour');
    });
  });
});
