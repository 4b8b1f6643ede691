import type { NextFunction, Request, Response } from 'express';
import { perClientLimit, perWalletLimit } from '../../api/http/middleware/limits';
import { clientKey, type Limiter, type RateDecision } from '../../shared/platform/limits/index';
import { LocalLimiter } from '../../shared/platform/limits/local';

describe('LocalLimiter (a token bucket per key, in process)', () => {
  it('lets a burst of `limit` through, refuses the next with the seconds until a token, and refills at limit/window', () => {
    let now = 1_000_000;
    const limiter = new LocalLimiter(3, 6, () => now);
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

  it('takes the time of a hit when given one', () => {
    const limiter = new LocalLimiter(1, 10, () => 0);
    expect(limiter.hit('a', new Date(0)).allowed).toBe(true);
    expect(limiter.hit('a', new Date(5_000))).toEqual({ allowed: false, retryAfterSeconds: 5 });
    expect(limiter.hit('a', new Date(15_000)).allowed).toBe(true);
  });

  it('enforce throws the 429 with Retry-After and the rate_limit block', () => {
    const limiter = new LocalLimiter(1, 60, () => 0);
    limiter.enforce('k', 'calls');
    expect(() => limiter.enforce('k', 'calls')).toThrow(
      expect.objectContaining({
        status: 429,
        code: 'rate_limited',
        headers: { 'Retry-After': '60' },
        extra: { rate_limit: { limit: 1, window_seconds: 60, retry_after_seconds: 60 } },
      }),
    );
  });
});

describe('clientKey', () => {
  it('keeps IPv4 (also v4-mapped) and groups IPv6 by /64', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
  });
});

describe('the limits middleware', () => {
  /** A store-backed limiter's shape: answers later, refuses past `limit` per key. */
  class SlowLimiter implements Limiter {
    readonly windowSeconds = 60;
    readonly keys: string[] = [];
    private readonly inner = new LocalLimiter(1, 60, () => 0);
    readonly limit = 1;
    async hit(key: string): Promise<RateDecision> {
      this.keys.push(key);
      return this.inner.hit(key);
    }
    async enforce(key: string, what: string): Promise<void> {
      this.keys.push(key);
      await Promise.resolve();
      this.inner.enforce(key, what);
    }
  }
  const req = (method = 'POST', path = '/x/invoke') =>
    ({ method, path, ip: '203.0.113.7', socket: {} }) as unknown as Request;
  const res = (wallet?: string) => ({ locals: { wallet } }) as unknown as Response;
  const run = (mw: (req: Request, res: Response, next: NextFunction) => void, rq: Request, rs: Response) =>
    new Promise<unknown>((resolve, reject) => {
      try {
        mw(rq, rs, (err?: unknown) => resolve(err));
      } catch (e) {
        reject(e);
      }
    });

  it('an in-process limit refuses at once (Express turns the throw into the error response)', async () => {
    const mw = perClientLimit(new LocalLimiter(1, 60, () => 0), 'invoke');
    expect(await run(mw, req(), res())).toBeUndefined();
    await expect(run(mw, req(), res())).rejects.toMatchObject({
      status: 429,
      message: expect.stringContaining('invokes from one address'),
    });
  });

  it('a store-backed limit passes its refusal to next, keyed per client or per wallet', async () => {
    const limiter = new SlowLimiter();
    const perClient = perClientLimit(limiter, 'start', { what: 'workflow starts' });
    expect(await run(perClient, req(), res())).toBeUndefined();
    expect(await run(perClient, req(), res())).toMatchObject({
      status: 429,
      message: expect.stringContaining('workflow starts from one address'),
    });
    const perWallet = perWalletLimit(limiter, 'start', { what: 'workflow starts' });
    expect(await run(perWallet, req(), res('0xabc'))).toBeUndefined();
    expect(await run(perWallet, req(), res('0xabc'))).toMatchObject({
      status: 429,
      message: expect.stringContaining('workflow starts for one wallet'),
    });
    expect(limiter.keys).toEqual([
      'start:ip:203.0.113.7',
      'start:ip:203.0.113.7',
      'start:wallet:0xabc',
      'start:wallet:0xabc',
    ]);
  });

  it('`only` narrows the limit to the requests it names', async () => {
    const mw = perClientLimit(new LocalLimiter(1, 60, () => 0), 'invoke', { only: (r) => r.method === 'POST' });
    for (let i = 0; i < 3; i++) expect(await run(mw, req('GET'), res())).toBeUndefined();
  });
});
