import { createHmac, createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import type { SignatureScheme } from './models/signing-key';

/** A key that signs callbacks now: the HMAC secret's bytes (`v1`) or an ed25519 private key (`v1a`). */
export type SigningKey =
  { scheme: 'v1'; version: number; secret: Buffer } | { scheme: 'v1a'; version: number; privateKey: KeyObject };

/** The bytes of a `whsec_` secret (Standard Webhooks: base64 after the prefix). */
export function hmacKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/** An ed25519 private key from its stored form (PKCS#8 DER, base64). */
export function ed25519Key(pkcs8: string): KeyObject {
  return createPrivateKey({ key: Buffer.from(pkcs8, 'base64'), format: 'der', type: 'pkcs8' });
}

/** A new ed25519 key pair: the private key's stored form and the public key as `whpk_` + base64 of its 32 bytes. */
export function newEd25519Pair(): { pkcs8: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return {
    pkcs8: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    publicKey: `whpk_${raw.toString('base64')}`,
  };
}

/** `<scheme>,<base64 signature>` of `<id>.<timestamp>.<body>`: HMAC-SHA256 for v1, ed25519 for v1a. */
export function signatureOf(key: SigningKey, content: string): string {
  if (key.scheme === 'v1') return `v1,${createHmac('sha256', key.secret).update(content).digest('base64')}`;
  return `v1a,${sign(null, Buffer.from(content, 'utf8'), key.privateKey).toString('base64')}`;
}

/**
 * Standard Webhooks headers for one POST: `webhook-id` (the same on every attempt and replay of a
 * message, so receivers can de-duplicate), `webhook-timestamp` (seconds, this POST) and
 * `webhook-signature`: one `<scheme>,<signature>` per key in force, space-separated, as the spec
 * allows while a rotation's overlap lasts (a receiver checks the ones it has a key for).
 */
export function standardWebhookHeaders(
  keys: readonly SigningKey[],
  messageId: string,
  body: string,
  at: Date,
): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000).toString();
  const content = `${messageId}.${timestamp}.${body}`;
  return {
    'webhook-id': messageId,
    'webhook-timestamp': timestamp,
    'webhook-signature': keys.map((k) => signatureOf(k, content)).join(' '),
  };
}

/** `<scheme>:<version>` of each key, as the delivery log records what signed an attempt. */
export function signedWith(keys: readonly SigningKey[]): string[] {
  return keys.map((k) => `${k.scheme}:${k.version}`);
}

export type { SignatureScheme };
