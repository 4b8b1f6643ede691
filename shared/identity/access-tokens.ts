import { BoundedCache } from '../platform/cache/bounded-cache';
import { ChangeCount } from '../platform/cache/change-count';
import { errors } from '../platform/errors/index';
import { ids, secret, SECRET_SHAPES, sha256Hex } from '../platform/ids/index';
import { DAY_MS } from '../platform/time';
import type { AccessTokenDoc } from './models/access-token';
import type { IdentityModels as Models } from './models/index';

export function hashToken(token: string): string {
  return sha256Hex(token);
}

export interface IssuedToken {
  access_token: string;
  token_id: string;
  wallet_address: string;
  label: string | null;
  expires_at: string | null;
}

/** What a bearer token resolved to: the wallet it speaks for, and when it stops doing so. */
export interface ResolvedAccessToken {
  wallet: string;
  tokenId: string;
  /** The stored key (sha256 of the token). */
  key: string;
  expiresAt: Date | null;
}

/** Revocations made by this process (through any instance): a resolution read before one is not reused. */
const tokenChanges = new ChangeCount();
/** Resolutions kept at most: a few hundred bytes each. */
const MAX_KEPT_TOKENS = 1000;

/** Bearer tokens for {api_url}: shown once, stored only as a sha256, revocable, optionally expiring. */
export class AccessTokenService {
  /** Tokens resolved for callers that asked for `reuse`, by key; only grants, never a refusal. */
  private readonly kept: BoundedCache<ResolvedAccessToken>;
  private seen = -1;

  /**
   * @param reuseMs how long a resolution may be reused by `authenticate(…, reuse)` (ACCESS_TOKEN_REUSE_MS;
   *   0: never): a revocation by another process bites within it, one by this process at once.
   */
  constructor(
    private readonly models: Pick<Models, 'accessTokens'>,
    reuseMs = 0,
  ) {
    this.kept = new BoundedCache(reuseMs > 0 ? MAX_KEPT_TOKENS : 0, reuseMs);
  }

  /** The count of this process's revocations, having dropped every resolution kept before the latest. */
  private epoch(): number {
    if (tokenChanges.value !== this.seen) {
      this.kept.clear();
      this.seen = tokenChanges.value;
    }
    return this.seen;
  }

  async issue(input: {
    wallet: string;
    label?: string;
    expiresInDays?: number | null;
    createdBy: AccessTokenDoc['created_by'];
    now?: Date;
  }): Promise<IssuedToken> {
    const now = input.now ?? new Date();
    const token = secret('act_');
    const doc: AccessTokenDoc = {
      _id: hashToken(token),
      token_id: ids.accessToken(),
      wallet_address: input.wallet.toLowerCase(),
      label: input.label,
      created_at: now,
      created_by: input.createdBy,
      expires_at: input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * DAY_MS) : null,
      revoked_at: null,
    };
    await this.models.accessTokens.collection.insertOne(doc as never);
    return {
      access_token: token,
      token_id: doc.token_id,
      wallet_address: doc.wallet_address,
      label: doc.label ?? null,
      expires_at: doc.expires_at?.toISOString() ?? null,
    };
  }

  /**
   * The wallet a bearer token speaks for, or a 401. With `reuse`, a resolution this process made
   * for another `reuse` request within the reuse window stands in for the store read (its
   * expiry is still checked against `now`).
   */
  async authenticate(header: string | undefined, now = new Date(), reuse = false): Promise<ResolvedAccessToken> {
    const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    if (!match) throw errors.unauthorized('missing_bearer', 'Authorization: Bearer <token> is required');
    if (!SECRET_SHAPES.act_.test(match[1])) throw errors.unauthorized('invalid_bearer', 'bearer token is not valid');
    const key = hashToken(match[1]);
    const epoch = this.epoch();
    let token = reuse ? this.kept.get(key) : undefined;
    if (!token) {
      const doc = await this.models.accessTokens.findById(key).lean<AccessTokenDoc>().exec();
      if (!doc || doc.revoked_at) throw errors.unauthorized('invalid_bearer', 'bearer token is not valid');
      token = { wallet: doc.wallet_address, tokenId: doc.token_id, key: doc._id, expiresAt: doc.expires_at ?? null };
      // A read that was in flight while this process revoked a token may predate the revocation.
      if (reuse && this.epoch() === epoch) this.kept.set(key, token);
    }
    if (token.expiresAt && token.expiresAt.getTime() <= now.getTime()) {
      throw errors.unauthorized('bearer_expired', 'bearer token has expired');
    }
    return token;
  }

  /** Whether the token stored under `key` (its sha256) still authenticates: not revoked, not expired. */
  async isActive(key: string, now = new Date()): Promise<boolean> {
    const doc = await this.models.accessTokens
      .findById(key, { revoked_at: 1, expires_at: 1 })
      .lean<AccessTokenDoc>()
      .exec();
    return !!doc && !doc.revoked_at && !(doc.expires_at && doc.expires_at.getTime() <= now.getTime());
  }

  async revoke(tokenId: string, now = new Date()): Promise<boolean> {
    const res = await this.models.accessTokens
      .updateOne({ token_id: tokenId, revoked_at: null }, { $set: { revoked_at: now } })
      .exec()
      // After the write (even one that failed: it may have landed): any resolution kept before is dropped.
      .finally(() => tokenChanges.bump());
    return res.modifiedCount > 0;
  }

  async list(wallet: string) {
    return this.models.accessTokens
      .find({ wallet_address: wallet.toLowerCase() }, { _id: 0 })
      .sort({ created_at: -1 })
      .lean<Omit<AccessTokenDoc, '_id'>[]>()
      .exec();
  }

  /** A wallet's own tokens as it may see them (never the hash), newest first. */
  async listOwn(wallet: string, now = new Date()) {
    const docs = await this.list(wallet);
    return docs.map((d) => ({
      token_id: d.token_id,
      label: d.label ?? null,
      created_at: d.created_at.toISOString(),
      created_by: d.created_by,
      expires_at: d.expires_at?.toISOString() ?? null,
      revoked_at: d.revoked_at?.toISOString() ?? null,
      status: d.revoked_at ? 'revoked' : d.expires_at && d.expires_at.getTime() <= now.getTime() ? 'expired' : 'active',
    }));
  }

  /** Revokes one of the wallet's own tokens; another wallet's token is answered like an unknown one. */
  async revokeOwn(
    wallet: string,
    tokenId: string,
    now = new Date(),
  ): Promise<{ token_id: string; already_revoked: boolean }> {
    const owner = { token_id: tokenId, wallet_address: wallet.toLowerCase() };
    const res = await this.models.accessTokens
      .updateOne({ ...owner, revoked_at: null }, { $set: { revoked_at: now } })
      .exec()
      .finally(() => tokenChanges.bump());
    if (res.modifiedCount > 0) return { token_id: tokenId, already_revoked: false };
    if (await this.models.accessTokens.exists(owner)) return { token_id: tokenId, already_revoked: true };
    throw errors.notFound('token_not_found', `you have no access token ${tokenId}`);
  }
}
