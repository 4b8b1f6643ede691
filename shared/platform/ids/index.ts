import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Types } from 'mongoose';

/**
 * Every random id and secret the product mints comes from here: one function per kind, one format
 * per kind. The formats are fixed by the validation patterns, the clients and the stored rows
 * that already carry them, so a kind's prefix, length and encoding never change; a new kind gets
 * a new function rather than a call site building its own string. Derived ids (claim ids, ledger
 * entry ids, workflow ids of Temporal flows) are built from business keys where they are used.
 */

/** `<prefix><2·bytes hex chars>`. */
const hex = (prefix: string, bytes: number) => `${prefix}${randomBytes(bytes).toString('hex')}`;
/** `<prefix><base64url of bytes>`: 32 bytes give 43 characters. */
const b64url = (prefix: string, bytes: number) => `${prefix}${randomBytes(bytes).toString('base64url')}`;

export const ids = {
  // Workspaces: `<prefix><16 hex>`.
  workspace: () => hex('ws_', 8),
  budget: () => hex('bud_', 8),
  agentGroup: () => hex('grp_', 8),
  approval: () => hex('apr_', 8),
  /** The public id of a workspace API key (the key itself is `secret('wak_')`). */
  workspaceKey: () => hex('wakid_', 8),
  /** The public id of an agent token (the token itself is `secret('agt_')`). */
  agentToken: () => hex('agtid_', 8),
  /** The public id of a bearer access token (the token itself is `secret('act_')`). */
  accessToken: () => hex('tok_', 8),
  /** The public id of a service operator's console key (the key itself is `secret('opk_')`). */
  operatorKey: () => hex('opkid_', 8),
  /** Workflow ids accept any `wf_[A-Za-z0-9_-]{1,64}`; minted ones are 16 hex. */
  workflow: () => hex('wf_', 8),
  bundle: () => hex('bnd_', 8),
  cancelRequest: () => hex('cr_', 8),

  // `<prefix><24 hex>`.
  run: () => hex('run_', 12),
  workflowSession: () => hex('wss_', 12),
  schedule: () => hex('sch_', 12),
  job: () => hex('job_', 12),
  reservation: () => hex('res_', 12),
  completion: () => hex('cmp_', 12),
  instance: () => hex('inst_', 12),
  issue: () => hex('iss_', 12),
  grant: () => hex('grant_', 12),
  /** A callback replay request. */
  callbackReplay: () => hex('rpl_', 12),
  /**
   * A callback delivery attempt: `dla_` + the time in ms (base36, 9 chars) + 12 hex, so a run's
   * attempts sort by `_id` in the order they were made (the delivery log pages on it).
   */
  deliveryAttempt: (at: Date) => `dla_${at.getTime().toString(36).padStart(9, '0')}${randomBytes(6).toString('hex')}`,
  /**
   * A bearer purchase's order. With a seed (wallet and Idempotency-Key) the id is derived, so a
   * replay of the same purchase answers the same order; the format is the same either way.
   */
  order: (seed?: string) => (seed === undefined ? hex('ord_', 12) : `ord_${sha256Hex(seed).slice(0, 24)}`),
  /** Tool products keep MongoDB ObjectId hex ids (24 hex, no prefix) that clients already hold. */
  product: () => new Types.ObjectId().toHexString(),

  /** The tool catalog's version stamp: 16 hex, no prefix; it only has to differ from the last one. */
  catalogVersion: () => randomBytes(8).toString('hex'),
  /** An embed sign-in nonce: 32 hex (EIP-4361 wants alphanumerics). */
  signInNonce: () => randomBytes(16).toString('hex'),
  /** A wallet session nonce: `sn_` + 32 base64url; it is the session's key and a bearer value. */
  session: () => b64url('sn_', 24),
  /**
   * A schedule claim token: `clm_<base64url claim id>.<24 base64url>`. It names its claim so the
   * claim is read by `_id`; the random part is what makes it a secret.
   */
  claimToken: (claimId: string) =>
    `clm_${Buffer.from(claimId).toString('base64url')}.${randomBytes(18).toString('base64url')}`,
  /** A console session's form token (its pages' CSRF token): 32 base64url. */
  consoleFormToken: () => randomBytes(24).toString('base64url'),
  /** A row of its own under `key` (`<key>|<16 hex>`), where every hit is inserted and then counted. */
  row: (key: string) => `${key}|${randomBytes(8).toString('hex')}`,
  /** A request's id when the client sent none we can echo. */
  request: () => randomUUID(),
};

export type SecretPrefix = 'bk_' | 'wak_' | 'agt_' | 'act_' | 'emb_' | 'csn_' | 'opk_';

/** Random secrets shown once (`<prefix><43 base64url chars>`); stored only as their sha256. */
export function secret(prefix: SecretPrefix): string {
  return b64url(prefix, 32);
}

export const SECRET_SHAPES: Record<SecretPrefix, RegExp> = {
  bk_: /^bk_[A-Za-z0-9_-]{43}$/,
  wak_: /^wak_[A-Za-z0-9_-]{43}$/,
  agt_: /^agt_[A-Za-z0-9_-]{43}$/,
  act_: /^act_[A-Za-z0-9_-]{43}$/,
  emb_: /^emb_[A-Za-z0-9_-]{43}$/,
  /** A console session's cookie value. */
  csn_: /^csn_[A-Za-z0-9_-]{43}$/,
  /** A service operator's console key (minted by the admin CLI). */
  opk_: /^opk_[A-Za-z0-9_-]{43}$/,
};

/** A Standard Webhooks signing secret: `whsec_` + base64 of 24 random bytes. */
export function webhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** A shared secret for a local process (the demo vendor): 48 hex. */
export function processSecret(): string {
  return randomBytes(24).toString('hex');
}

/** The one sha256 of the product: of text (as UTF-8) or bytes, hex (stored hashes, derived ids). */
export function sha256Hex(data: string | Uint8Array): string {
  return sha256(data).toString('hex');
}

/** The same digest as bytes (keys, checksums, constant-time comparisons). */
export function sha256(data: string | Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}
