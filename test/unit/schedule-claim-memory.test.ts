import { ids } from '../../shared/platform/ids/index';
import { ClaimMemory, LEARNED_HOLD_MS, MADE_HERE_MS, OWN_HOLD_MS } from '../../shared/schedules/claim-memory';
import { claimId, type Schedule, type ScheduleClaim } from '../../shared/schedules/repository';

const T0 = Date.parse('2026-11-23T09:00:00Z');
const base = new Date(T0 - 60_000);

function claim(attempt = 0, leaseMs = 60_000): ScheduleClaim {
  const id = claimId('sch_1', base, attempt);
  return {
    _id: id,
    schedule_id: 'sch_1',
    budget_id: 'bud_1',
    base_due_at: base,
    attempt,
    due_at: base,
    skipped: 0,
    claim_token: ids.claimToken(id),
    claimed_at: new Date(T0),
    lease_expires_at: new Date(T0 + leaseMs),
    held_entry: false,
  };
}
const schedule = { _id: 'sch_1', budget_id: 'bud_1', next_due_at: base } as Schedule;

describe('what one process remembers of claims (ClaimMemory)', () => {
  beforeEach(() => jest.useFakeTimers({ now: T0 }));
  afterEach(() => jest.useRealTimers());

  it('leaves an occurrence out while the lease holds by the service clock, and no longer than it trusts itself', () => {
    const m = new ClaimMemory();
    m.noteHeld(claim(0, 600_000), OWN_HOLD_MS);
    expect(m.isHeld('sch_1', base, new Date(T0))).toBe(true);
    expect(m.isHeld('sch_1', new Date(base.getTime() + 1), new Date(T0))).toBe(false);
    expect(m.isHeld('sch_1', base, new Date(T0 + 600_000))).toBe(false); // the lease ran out (service clock)
    jest.setSystemTime(T0 + OWN_HOLD_MS + 1);
    expect(m.isHeld('sch_1', base, new Date(T0))).toBe(false); // trusted for OWN_HOLD_MS only
    m.noteHeld(claim(1, 600_000), LEARNED_HOLD_MS);
    jest.setSystemTime(T0 + OWN_HOLD_MS + LEARNED_HOLD_MS + 2);
    expect(m.isHeld('sch_1', base, new Date(T0))).toBe(false);
  });

  it('answers a made claim only for its exact token and for MADE_HERE_MS; a release forgets both', () => {
    const m = new ClaimMemory();
    const c = claim();
    m.remember(c, schedule);
    m.noteHeld(c, OWN_HOLD_MS);
    expect(m.madeFor(c.claim_token)).toMatchObject({ claim: c, schedule });
    expect(m.madeFor(`${c.claim_token.split('.')[0]}.other`)).toBeUndefined();
    expect(m.madeFor('clm_old-form-token')).toBeUndefined();
    m.released(c);
    expect(m.madeFor(c.claim_token)).toBeUndefined();
    expect(m.isHeld('sch_1', base, new Date(T0))).toBe(false);

    const d = claim(1);
    m.remember(d, schedule);
    m.noteHeld(d, OWN_HOLD_MS);
    m.advanced(d);
    expect(m.madeFor(d.claim_token)).toBeUndefined();
    expect(m.isHeld('sch_1', base, new Date(T0))).toBe(true); // advanced: its entry may still be in a read

    const e = claim(2);
    m.remember(e, schedule);
    jest.setSystemTime(T0 + MADE_HERE_MS + 1);
    expect(m.madeFor(e.claim_token)).toBeUndefined();
  });
});
