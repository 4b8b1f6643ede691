import {
  dueOccurrence,
  MAX_COUNTED_SKIPS,
  nextOccurrence,
  type ScheduleTiming,
  timingProblem,
} from '../../shared/schedules/timing';
import { parseBudgetBearer } from '../../shared/workspaces/budget-bearer';

const cron = (expr: string, timezone: string): ScheduleTiming => ({ kind: 'cron', cron: expr, timezone });
const at = (s: string) => new Date(s);
const runs = (t: ScheduleTiming, from: string, n: number) => {
  const out: string[] = [];
  let d = at(from);
  for (let i = 0; i < n; i++) {
    d = nextOccurrence(t, d)!;
    out.push(d.toISOString());
  }
  return out;
};

describe('schedule timing: cron in a named time zone across DST', () => {
  it('America/New_York spring forward: 02:30 does not exist on 2026-03-08 and fires at 03:00 EDT; offsets change', () => {
    expect(runs(cron('30 2 * * *', 'America/New_York'), '2026-03-07T00:00:00Z', 3)).toEqual([
      '2026-03-07T07:30:00.000Z', // 02:30 EST (UTC-5)
      '2026-03-08T07:00:00.000Z', // the gap: first instant after it, 03:00 EDT
      '2026-03-09T06:30:00.000Z', // 02:30 EDT (UTC-4)
    ]);
  });

  it('America/New_York fall back: 01:30 happens twice on 2026-11-01 and fires once, on its first pass', () => {
    expect(runs(cron('30 1 * * *', 'America/New_York'), '2026-10-31T00:00:00Z', 3)).toEqual([
      '2026-10-31T05:30:00.000Z', // 01:30 EDT
      '2026-11-01T05:30:00.000Z', // first 01:30 (EDT), not again at 06:30Z (EST)
      '2026-11-02T06:30:00.000Z', // 01:30 EST
    ]);
  });

  it('a wildcard-hour pattern fires on both passes of the repeated hour (every real half hour)', () => {
    expect(runs(cron('*/30 * * * *', 'America/New_York'), '2026-11-01T04:45:00Z', 5)).toEqual([
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T06:00:00.000Z',
      '2026-11-01T06:30:00.000Z',
      '2026-11-01T07:00:00.000Z',
    ]);
  });

  it('Europe/Berlin: 09:00 on weekdays keeps local time across the 2026-03-29 change (08:00Z → 07:00Z)', () => {
    expect(runs(cron('0 9 * * 1-5', 'Europe/Berlin'), '2026-03-26T12:00:00Z', 3)).toEqual([
      '2026-03-27T08:00:00.000Z', // Friday, CET (UTC+1)
      '2026-03-30T07:00:00.000Z', // Monday, CEST (UTC+2)
      '2026-03-31T07:00:00.000Z',
    ]);
    // 02:30 on the change night does not exist in Berlin either.
    expect(runs(cron('30 2 * * *', 'Europe/Berlin'), '2026-03-28T12:00:00Z', 2)).toEqual([
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ]);
  });

  it('next occurrence is strictly after the given instant', () => {
    expect(nextOccurrence(cron('0 * * * *', 'UTC'), at('2026-01-01T10:00:00Z'))!.toISOString()).toBe(
      '2026-01-01T11:00:00.000Z',
    );
  });
});

describe('schedule timing: fixed intervals', () => {
  const every = (s: number, anchor: string): ScheduleTiming => ({
    kind: 'interval',
    every_seconds: s,
    anchor_at: at(anchor),
    timezone: 'America/New_York',
  });

  it('falls on anchor + k × every of real time, whatever the zone does', () => {
    expect(runs(every(3600, '2026-11-01T04:00:00Z'), '2026-11-01T04:00:00Z', 3)).toEqual([
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T06:00:00.000Z',
      '2026-11-01T07:00:00.000Z',
    ]);
    expect(nextOccurrence(every(600, '2026-01-01T00:00:00Z'), at('2025-01-01T00:00:00Z'))!.toISOString()).toBe(
      '2026-01-01T00:00:00.000Z',
    );
  });

  it('catch-up coalesces to the latest due occurrence and counts the skipped ones', () => {
    const t = every(600, '2026-01-01T00:00:00Z');
    expect(dueOccurrence(t, at('2026-01-01T00:10:00Z'), at('2026-01-01T01:05:00Z'))).toEqual({
      due_at: at('2026-01-01T01:00:00Z'),
      skipped: 5,
      skipped_at_least: false,
    });
    expect(dueOccurrence(t, at('2026-01-01T00:10:00Z'), at('2026-01-01T00:10:00Z'))).toEqual({
      due_at: at('2026-01-01T00:10:00Z'),
      skipped: 0,
      skipped_at_least: false,
    });
    expect(dueOccurrence(t, at('2026-01-01T00:10:00Z'), at('2026-01-01T00:09:59Z'))).toBeNull();
  });
});

describe('schedule timing: catch-up on cron schedules', () => {
  it('coalesces missed daily runs across a DST change, counting what it skipped', () => {
    const t = cron('30 2 * * *', 'America/New_York');
    const due = dueOccurrence(t, at('2026-03-06T07:30:00Z'), at('2026-03-10T12:00:00Z'));
    expect(due).toEqual({ due_at: at('2026-03-10T06:30:00Z'), skipped: 4, skipped_at_least: false });
  });

  it('stops counting far behind, and still lands on the latest due occurrence', () => {
    const due = dueOccurrence(cron('* * * * *', 'UTC'), at('2026-01-01T00:00:00Z'), at('2026-03-01T00:00:30Z'))!;
    expect(due.due_at.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(due).toMatchObject({ skipped: MAX_COUNTED_SKIPS, skipped_at_least: true });
  });
});

describe('schedule timing: definitions', () => {
  it('accepts five-field cron or an interval in an IANA zone, and explains what it refuses', () => {
    expect(timingProblem({ cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' })).toBeNull();
    expect(timingProblem({ every_seconds: 3600, timezone: 'UTC' })).toBeNull();
    expect(timingProblem({ cron: '0 0 9 * * *', timezone: 'UTC' })).toMatch(/five fields/);
    expect(timingProblem({ cron: '61 * * * *', timezone: 'UTC' })).toMatch(/invalid cron/);
    expect(timingProblem({ cron: '0 9 * * *', timezone: 'Mars/Olympus' })).toMatch(/time zone/);
    expect(timingProblem({ every_seconds: 30, timezone: 'UTC' })).toMatch(/between 60/);
    expect(timingProblem({ cron: '0 9 * * *', every_seconds: 60, timezone: 'UTC' })).toMatch(/exactly one/);
    expect(timingProblem({ cron: '0 0 30 2 *', timezone: 'UTC' })).toMatch(/never fires/);
  });
});

describe('schedule bearer', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  it('is base64("<api_key>:<budget_key>"), padding optional; anything else is refused', () => {
    expect(parseBudgetBearer(`Bearer ${b64('wak_abc:bk_def')}`)).toEqual({ apiKey: 'wak_abc', budgetKey: 'bk_def' });
    expect(parseBudgetBearer(`Bearer ${b64('wak_abc:bk_def').replace(/=+$/, '')}`)).toEqual({
      apiKey: 'wak_abc',
      budgetKey: 'bk_def',
    });
    expect(parseBudgetBearer(undefined)).toBeNull();
    expect(parseBudgetBearer(`Basic ${b64('wak_abc:bk_def')}`)).toBeNull();
    expect(parseBudgetBearer(`Bearer ${b64('wak_abc')}`)).toBeNull();
    expect(parseBudgetBearer(`Bearer ${b64(':bk_def')}`)).toBeNull();
    expect(parseBudgetBearer(`Bearer ${b64('wak abc:bk_def')}`)).toBeNull();
    expect(parseBudgetBearer('Bearer not*base64')).toBeNull();
  });
});
