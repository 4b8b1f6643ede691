import { Webhook } from 'standardwebhooks';
import { verifyCallback } from '../../sdk/src/callbacks';
import { ed25519Key, hmacKey, newEd25519Pair, standardWebhookHeaders } from '../../shared/webhook-runs/callback-sign';
import { keysInForce, MAX_KEYS_IN_FORCE } from '../../shared/webhook-runs/signing-keys';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const key = (version: number, until: number | null, scheme: 'v1' | 'v1a' = 'v1') => ({
  version,
  scheme,
  public_key: null,
  created_at: at(0),
  previous_valid_until: until === null ? null : at(until),
});

describe('keys in force after rotations (pure)', () => {
  it('is the original key alone before any rotation', () => {
    expect(keysInForce([], at(0)).map((k) => k.key.version)).toEqual([0]);
  });
  it('keeps the previous key until the overlap ends, then only the new one', () => {
    const chain = [key(1, 10)];
    expect(keysInForce(chain, at(9)).map((k) => [k.key.version, k.validUntil])).toEqual([
      [1, null],
      [0, at(10)],
    ]);
    expect(keysInForce(chain, at(10)).map((k) => k.key.version)).toEqual([1]);
  });
  it('chains rotations inside one another, bounded, and stops at the first ended overlap', () => {
    expect(keysInForce([key(3, 50), key(2, 50), key(1, 50)], at(1)).map((k) => k.key.version)).toEqual([3, 2, 1]);
    expect(MAX_KEYS_IN_FORCE).toBe(3);
    expect(keysInForce([key(3, 50), key(2, 5), key(1, 50)], at(10)).map((k) => k.key.version)).toEqual([3, 2]);
    // A gap in versions (only the latest rotations were read) ends the chain.
    expect(keysInForce([key(5, 50), key(3, 50)], at(1)).map((k) => k.key.version)).toEqual([5]);
  });
});

describe('signatures as Standard Webhooks writes them', () => {
  const secret = `whsec_${Buffer.alloc(24, 5).toString('base64')}`;
  const other = `whsec_${Buffer.alloc(24, 6).toString('base64')}`;
  const pair = newEd25519Pair();
  const body = JSON.stringify({ type: 'webhook_run.completed', data: { run: { run_id: 'run_1' } } });
  const now = new Date();
  const headers = standardWebhookHeaders(
    [
      { scheme: 'v1a', version: 2, privateKey: ed25519Key(pair.pkcs8) },
      { scheme: 'v1', version: 1, secret: hmacKey(secret) },
    ],
    'msg_run_1',
    body,
    now,
  );

  it('writes one space-separated entry per key, the v1 one verifiable by the standardwebhooks package', () => {
    expect(headers['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}== v1,[A-Za-z0-9+/]{43}=$/);
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
    expect((new Webhook(secret).verify(body, headers) as any).data.run.run_id).toBe('run_1');
    expect(() => new Webhook(other).verify(body, headers)).toThrow();
    expect(pair.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
  });

  it('the SDK verifies either kind, with any of several keys, and refuses what does not match', () => {
    expect(verifyCallback(pair.publicKey, body, headers).type).toBe('webhook_run.completed');
    expect(verifyCallback(secret, Buffer.from(body), new Headers(headers)).type).toBe('webhook_run.completed');
    expect(verifyCallback([other, pair.publicKey], body, headers).type).toBe('webhook_run.completed');
    expect(() => verifyCallback(other, body, headers)).toThrow(/no signature matches/);
    expect(() => verifyCallback(newEd25519Pair().publicKey, body, headers)).toThrow(/no signature matches/);
    expect(() => verifyCallback(pair.publicKey, body.replace('run_1', 'run_2'), headers)).toThrow(
      /callback not verified/,
    );
    expect(() => verifyCallback(secret, body, { ...headers, 'webhook-id': 'msg_other' })).toThrow(/no signature/);
    expect(() => verifyCallback(secret, body, headers, { now: new Date(now.getTime() + 301_000) })).toThrow(
      /too far from now/,
    );
    expect(() => verifyCallback('whpk_AAAA', body, headers)).toThrow(/unusable key/);
    const { 'webhook-signature': _s, ...unsigned } = headers;
    expect(() => verifyCallback(secret, body, unsigned)).toThrow(/missing/);
  });
});
