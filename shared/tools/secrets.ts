import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Vendor secrets at rest: AES-256-GCM, a fresh 12-byte IV per value, stored as
 * `v1.<iv>.<tag>.<ciphertext>` (base64url). The secret's name is bound as associated data, so a
 * ciphertext copied under another name does not decrypt.
 */
function keyOf(key: Buffer | string): Buffer {
  const buf = typeof key === 'string' ? Buffer.from(key, 'hex') : key;
  if (buf.length !== 32) throw new RangeError('tool secrets key must be 32 bytes');
  return buf;
}

export function encryptSecret(key: Buffer | string, name: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(key), iv);
  cipher.setAAD(Buffer.from(name));
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ct]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

export function decryptSecret(key: Buffer | string, name: string, stored: string): string {
  const [v, iv, tag, ct] = stored.split('.');
  if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unreadable secret');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(key), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(name));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}
