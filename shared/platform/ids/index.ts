import { createHash, randomBytes } from 'node:crypto';

/** Random secrets shown once (`<prefix><43 base64url chars>`) and the sha256 under which they are stored. */
export function newSecret(prefix: 'bk_' | 'wak_' | 'agt_'): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function sha256Hex(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Public ids: `<prefix><16 hex>`. */
export function newId(prefix: 'ws_' | 'bud_' | 'grp_' | 'apr_' | 'wf_' | 'wakid_' | 'agtid_'): string {
  return `${prefix}${randomBytes(8).toString('hex')}`;
}

export const SECRET_SHAPES = {
  bk_: /^bk_[A-Za-z0-9_-]{43}$/,
  wak_: /^wak_[A-Za-z0-9_-]{43}$/,
  agt_: /^agt_[A-Za-z0-9_-]{43}$/,
} as const;

/** A Standard Webhooks signing secret: `whsec_` + base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
