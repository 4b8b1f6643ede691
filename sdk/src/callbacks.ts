/**
 * For receivers of run callbacks: the service signs each delivery the Standard Webhooks way
 * (webhook-id, webhook-timestamp, webhook-signature). A group's key is either an HMAC secret
 * (`whsec_…`, signatures `v1,…`) or an ed25519 key pair whose public half it publishes
 * (`whpk_…`, signatures `v1a,…`). While a key rotation's overlap lasts, the header carries one
 * signature per key, space-separated; a callback verifies when any of them matches a key you hold.
 * Verify the raw body before trusting it; webhook-id repeats on retries and replays, de-duplicate on it.
 */
import { createHmac, createPublicKey, type KeyObject, timingSafeEqual, verify } from 'node:crypto';
import { AgentCommerceError } from './errors';
import type { Run } from './runs';

export interface RunCallback {
  /** webhook_run.completed, webhook_run.failed, webhook_run.cancelled, ... */
  type: string;
  timestamp: string;
  data: { run: Run };
}

export interface VerifyOptions {
  /** How far webhook-timestamp may be from now (seconds, default 300, as the Standard Webhooks libraries). */
  toleranceSeconds?: number;
  /** The clock (tests). */
  now?: Date;
}

type Verifier = { scheme: 'v1'; secret: Buffer } | { scheme: 'v1a'; publicKey: KeyObject };

function verifierOf(key: string): Verifier {
  if (key.startsWith('whpk_')) {
    const raw = Buffer.from(key.slice(5), 'base64');
    if (raw.length !== 32) throw new Error('a whpk_ key is base64 of 32 bytes');
    return {
      scheme: 'v1a',
      publicKey: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' }),
    };
  }
  const secret = Buffer.from(key.startsWith('whsec_') ? key.slice(6) : key, 'base64');
  if (secret.length === 0) throw new Error('empty secret');
  return { scheme: 'v1', secret };
}

function matches(v: Verifier, content: Buffer, signature: Buffer): boolean {
  if (v.scheme === 'v1a') return verify(null, content, v.publicKey, signature);
  const expected = createHmac('sha256', v.secret).update(content).digest();
  return expected.length === signature.length && timingSafeEqual(expected, signature);
}

function invalid(message: string): AgentCommerceError {
  return new AgentCommerceError({
    code: 'sdk_callback_invalid',
    message: `callback not verified: ${message}`,
    status: 0,
  });
}

/**
 * The verified callback, or an AgentCommerceError (code sdk_callback_invalid) for a bad
 * signature, a stale timestamp or keys that signed none of it. `keys`: the group's `whsec_`
 * secret(s) and/or `whpk_` public key(s); hold both the old and new ones across a rotation.
 */
export function verifyCallback(
  keys: string | readonly string[],
  rawBody: string | Buffer,
  headers: Record<string, string | string[] | undefined> | Headers,
  options: VerifyOptions = {},
): RunCallback {
  const flat: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [key, value] of entries)
    if (value !== undefined) flat[key.toLowerCase()] = Array.isArray(value) ? value.join(' ') : value;
  const id = flat['webhook-id'];
  const timestamp = flat['webhook-timestamp'];
  const signatures = flat['webhook-signature'];
  if (!id || !timestamp || !signatures) throw invalid('missing webhook-id, webhook-timestamp or webhook-signature');
  if (!/^\d+$/.test(timestamp)) throw invalid('webhook-timestamp is not a number of seconds');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300))
    throw invalid('webhook-timestamp is too far from now');
  let verifiers: Verifier[];
  try {
    verifiers = (typeof keys === 'string' ? [keys] : keys).map(verifierOf);
  } catch (err) {
    throw invalid(`unusable key: ${(err as Error).message}`);
  }
  const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  const content = Buffer.from(`${id}.${timestamp}.${body}`, 'utf8');
  for (const entry of signatures.split(' ')) {
    const [scheme, value] = entry.split(',', 2);
    if (!value) continue;
    const signature = Buffer.from(value, 'base64');
    if (verifiers.some((v) => v.scheme === scheme && matches(v, content, signature))) {
      try {
        return JSON.parse(body) as RunCallback;
      } catch {
        throw invalid('the body is not JSON');
      }
    }
  }
  throw invalid('no signature matches the keys given');
}
