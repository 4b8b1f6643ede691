import { readFileSync } from 'node:fs';
import { judgeAddress } from '../../shared/platform/http/address-policy';
import { NOT_PUBLIC } from '../../shared/platform/http/outbound';
import { RefusedTarget, safePost } from '../../shared/webhook-runs/callback-post';
import { classifyStatus, parseRetryAfter, retryDelayMs } from '../../shared/webhook-runs/callback-schedule';
import { type HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';

const REFUSED: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.8.9.10', 'loopback'],
  ['::1', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.254', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'linkLocal'],
  ['169.254.1.1', 'linkLocal'],
  ['fe80::1', 'linkLocal'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['100.100.100.200', 'carrierGradeNat'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['::', 'unspecified'],
  ['fc00::1', 'uniqueLocal'],
  ['fd00:ec2::254', 'uniqueLocal'],
  ['255.255.255.255', 'broadcast'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'linkLocal'],
  ['::ffff:7f00:1', 'loopback'],
];

describe('callback address rules', () => {
  it.each(REFUSED)('refuses %s (%s)', (ip, range) => {
    expect(judgeAddress(ip)).toEqual({ ok: false, reason: `${ip} is a ${range} address` });
  });

  it('allows public unicast, and loopback only with the test setting', () => {
    expect(judgeAddress('93.184.215.14')).toMatchObject({ ok: true, family: 4 });
    expect(judgeAddress('2606:2800:21f:cb07:6820:80da:af6b:8b2c')).toMatchObject({ ok: true, family: 6 });
    expect(judgeAddress('::ffff:93.184.215.14')).toEqual({ ok: true, address: '93.184.215.14', family: 4 });
    expect(judgeAddress('127.0.0.1', { allowLoopback: true })).toMatchObject({ ok: true });
    expect(judgeAddress('10.0.0.1', { allowLoopback: true })).toMatchObject({ ok: false });
    expect(judgeAddress('not-an-ip')).toMatchObject({ ok: false });
  });
});

describe('safePost against a real HTTPS receiver on 127.0.0.1', () => {
  let receiver: HttpsReceiver;
  beforeAll(async () => {
    receiver = await startHttpsReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });
  const opts = (o: Partial<Parameters<typeof safePost>[1]> = {}) => ({
    body: '{}',
    headers: {},
    timeoutMs: 5000,
    ca: readFileSync(receiver.caFile),
    ...o,
  });

  it('refuses http, URL credentials, and every non-public literal address (IPv4, IPv6, IPv4-mapped)', async () => {
    await expect(safePost('http://93.184.215.14/x', opts())).rejects.toThrow('only https');
    await expect(safePost('https://u:p@93.184.215.14/x', opts())).rejects.toThrow('credentials');
    for (const [ip] of REFUSED) {
      const host = ip.includes(':') ? `[${ip}]` : ip;
      await expect(safePost(`https://${host}/hook`, opts())).rejects.toBeInstanceOf(RefusedTarget);
    }
    const port = new URL(receiver.origin).port;
    await expect(safePost(`https://127.0.0.1:${port}/hook`, opts())).rejects.toMatchObject({
      message: NOT_PUBLIC,
      detail: '127.0.0.1 is a loopback address',
    });
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses a host name when any of its addresses is not public, telling the caller no address (the operator gets them)', async () => {
    const resolveTo =
      (...addresses: string[]) =>
      async () =>
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    // The message is all a callback's owner may read: the same for every refusal, whatever the resolver said.
    const refusal = (detail: string) => ({ name: 'RefusedTarget', message: NOT_PUBLIC, detail });
    await expect(
      safePost('https://internal.example/hook', opts({ resolve: resolveTo('10.0.0.5') })),
    ).rejects.toMatchObject(refusal('internal.example resolves to 10.0.0.5: 10.0.0.5 is a private address'));
    await expect(
      safePost('https://mixed.example/hook', opts({ resolve: resolveTo('93.184.215.14', '169.254.169.254') })),
    ).rejects.toMatchObject(
      refusal('mixed.example resolves to 93.184.215.14, 169.254.169.254: 169.254.169.254 is a linkLocal address'),
    );
    await expect(
      safePost('https://v6.example/hook', opts({ resolve: resolveTo('::ffff:192.168.0.1') })),
    ).rejects.toMatchObject(
      refusal('v6.example resolves to ::ffff:192.168.0.1: ::ffff:192.168.0.1 is a private address'),
    );
    await expect(
      safePost(
        'https://nowhere.invalid/hook',
        opts({
          resolve: async () => {
            throw new Error('ENOTFOUND');
          },
        }),
      ),
    ).rejects.toMatchObject(refusal('cannot resolve nowhere.invalid: ENOTFOUND'));
    expect(NOT_PUBLIC).not.toMatch(/\d|internal|private|loopback/);
  });

  it('connects to the address it checked: one resolution, pinned (no DNS rebinding)', async () => {
    const answers = ['127.0.0.1', '10.0.0.1'];
    let calls = 0;
    const resolve = async () => [{ address: answers[calls++], family: 4 }];
    const port = new URL(receiver.origin).port;
    receiver.received.length = 0;
    const res = await safePost(`https://localhost:${port}/pinned`, opts({ allowLoopback: true, resolve }));
    expect(res.status).toBe(200);
    expect(calls).toBe(1);
    expect(receiver.received).toHaveLength(1);
  });

  it('does not follow redirects', async () => {
    receiver.received.length = 0;
    receiver.script([{ status: 307, headers: { location: `${receiver.origin}/second` } }]);
    const res = await safePost(`${receiver.origin}/first`, opts({ allowLoopback: true }));
    expect(res).toMatchObject({ status: 307, location: `${receiver.origin}/second` });
    expect(receiver.received).toHaveLength(1);
  });

  it("ends at the receiver's head and closes the connection when the body that follows never ends", async () => {
    receiver.received.length = 0;
    receiver.script([{ status: 200, trickle: true }]);
    const started = Date.now();
    const res = await safePost(`${receiver.origin}/trickle`, opts({ allowLoopback: true, timeoutMs: 2000 }));
    expect(res.status).toBe(200);
    // The receiver's side of the connection closes within the attempt's timeout, not when it stops sending.
    while (receiver.openConnections() > 0 && Date.now() - started < 2500) await new Promise((r) => setTimeout(r, 20));
    expect(receiver.openConnections()).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });

  it('refuses a receiver whose certificate is not trusted', async () => {
    await expect(safePost(`${receiver.origin}/x`, opts({ allowLoopback: true, ca: undefined }))).rejects.toThrow(
      /self[- ]signed|certificate/i,
    );
  });
});

describe('callback schedule rules', () => {
  const s = { maxAttempts: 8, initialIntervalMs: 1000, backoffCoefficient: 2, maxIntervalMs: 10_000, jitter: 0.5 };
  it('backs off exponentially with jitter, capped, and honours a longer Retry-After', () => {
    expect([1, 2, 3, 4, 5].map((a) => retryDelayMs(a, s, 0))).toEqual([1000, 2000, 4000, 8000, 10_000]);
    expect(retryDelayMs(3, s, 1)).toBe(2000);
    expect(retryDelayMs(1, s, 0, 5000)).toBe(5000);
    expect(retryDelayMs(1, s, 0, 500)).toBe(1000);
    expect(retryDelayMs(1, s, 0, 999_999)).toBe(10_000);
    expect(parseRetryAfter('120', 0)).toBe(120_000);
    expect(parseRetryAfter(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(parseRetryAfter('soon', 0)).toBeNull();
  });
  it('classifies answers', () => {
    expect([200, 204, 299].map((s) => classifyStatus(s))).toEqual(['delivered', 'delivered', 'delivered']);
    expect([500, 503, 429, 408, null].map((s) => classifyStatus(s))).toEqual([
      'retry',
      'retry',
      'retry',
      'retry',
      'retry',
    ]);
    expect([400, 401, 404, 301, 302].map((s) => classifyStatus(s))).toEqual(['fail', 'fail', 'fail', 'fail', 'fail']);
    expect(classifyStatus(410)).toBe('stop');
    // The receiver's stop header on a non-2xx answer, in any case; a 2xx is delivered whatever it says.
    expect([400, 429, 500, 503].map((s) => classifyStatus(s, 'Abort-Message'))).toEqual([
      'stop',
      'stop',
      'stop',
      'stop',
    ]);
    expect(classifyStatus(200, 'abort-message')).toBe('delivered');
    expect(classifyStatus(503, 'retry')).toBe('retry');
  });
});
