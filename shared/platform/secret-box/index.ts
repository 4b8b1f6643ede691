import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { errors } from '../errors/index';

/**
 * AES-256-GCM for every secret at rest (workspace credentials, webhook signing secrets, vendor
 * secrets of the tool catalog): a fresh 12-byte IV per value, stored as
 * `v1.<iv>.<tag>.<ciphertext>` in base64url. `context` (e.g. `<workspace>:<name>`, or a vendor
 * secret's name) is bound as associated data, so a ciphertext copied onto another record does not
 * decrypt. The stored text is read back by every release: its format never changes.
 */
export class SecretBox {
  private readonly key: Buffer;

  /** `key`: 32 bytes, or their 64 hex characters. */
  constructor(key: Buffer | string) {
    this.key = typeof key === 'string' ? Buffer.from(key, 'hex') : key;
    if (this.key.length !== 32) throw new RangeError('a secret box key must be 32 bytes');
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join(
      '.',
    );
  }

  open(sealed: string, context: string): string {
    const [v, iv, tag, data] = sealed.split('.');
    if (v !== 'v1' || !iv || !tag || data === undefined) throw new Error('unreadable sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** The configured box, or the one error every holder of secrets answers when the key is missing. */
export function requireSecretBox(box: SecretBox | undefined): SecretBox {
  if (!box)
    throw errors.internal(
      'credentials_key_missing',
      'no credentials encryption key is configured (CREDENTIALS_ENCRYPTION_KEY)',
    );
  return box;
}
