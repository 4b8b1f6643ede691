import { LocalRateLimiter } from '../../shared/platform/limits/light-limit';

describe('LocalRateLimiter (a token bucket per key, in process)', () => {
  it('lets a burst of `limit` through, refuses the next with the seconds until a token, and refills at limit/window', () => {
    let now = 1_000_000;
    const limiter = new LocalRateLimiter(3, 6, () => now);
    expect([limiter.hit('a'), limiter.hit('a'), limiter.hit('a')].every((d) => d.allowed)).toBe(true);
    expect(limiter.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 2 });
    expect(limiter.hit('b')).toEqual({ allowed: true });
    now += 1000;
    expect(limiter.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now += 1000;
    expect(limiter.hit('a')).toEqual({ allowed: true });
    expect(limiter.hit('a').allowed).toBe(false);
    // Never more than the burst, however long idle.
    now += 3_600_000;
    expect([1, 2, 3, 4].map(() => limiter.hit('a').allowed)).toEqual([true, true, true, false]);
  });

  it('enforce throws the 429 with Retry-After and the rate_limit block', () => {
    const limiter = new LocalRateLimiter(1, 60, () => 0);
    limiter.enforce('k', 'calls');
    expect(() => limiter.enforce('k', 'calls')).toThrow(expect.objectContaining({ status: 429, code: 'rate_limited', headers: { 'Retry-After': '60' }, extra: { rate_limit: { limit: 1, window_seconds: 60, retry_after_seconds: 60 } } }));
  });
});
