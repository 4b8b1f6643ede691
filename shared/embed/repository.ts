import { insertOnce } from '../platform/db/index';
import { ids, secret, sha256Hex } from '../platform/ids/index';
import type { EmbedBundleDoc, EmbedItem, EmbedNonceDoc, EmbedTokenDoc } from './model';
import type { EmbedModels as Models } from './models';
import { NONCE_TTL_MS, TOKEN_TTL_MS } from './rules';

type EmbedModels = Pick<
  Models,
  'embedBundles' | 'embedNonces' | 'embedNonceUses' | 'embedNonceFailures' | 'embedTokens'
>;

export type EmbedBundle = EmbedBundleDoc;
type NonceRef = Pick<EmbedNonceDoc, '_id' | 'expires_at'>;

/** Bundles (the operator's embed settings), sign-in nonces and widget tokens. */
export class EmbedRepository {
  constructor(private readonly models: EmbedModels) {}

  async createBundle(i: {
    workspaceId: string;
    groupId: string;
    name: string;
    origins: string[];
    now?: Date;
  }): Promise<EmbedBundle> {
    const now = i.now ?? new Date();
    const doc: EmbedBundleDoc = {
      _id: ids.bundle(),
      workspace_id: i.workspaceId,
      group_id: i.groupId,
      name: i.name,
      allowed_origins: [...new Set(i.origins)],
      items: [],
      created_at: now,
      updated_at: now,
    };
    await this.models.embedBundles.collection.insertOne(doc as never);
    return doc;
  }

  async getBundle(id: string): Promise<EmbedBundle | null> {
    return (await this.models.embedBundles.findById(id).lean<EmbedBundleDoc>().exec()) ?? null;
  }

  /** The oldest bundle exposing this item: the settings of a page opened without `?bundle=`. */
  async firstBundleExposing(item: EmbedItem): Promise<EmbedBundle | null> {
    const docs = await this.models.embedBundles
      .find({ 'items.ref': item.ref })
      .sort({ created_at: 1, _id: 1 })
      .lean<EmbedBundleDoc[]>()
      .exec();
    return docs.find((d) => d.items.some((x) => x.kind === item.kind && x.ref === item.ref)) ?? null;
  }

  async listBundles(workspaceId?: string): Promise<EmbedBundle[]> {
    return this.models.embedBundles
      .find(workspaceId ? { workspace_id: workspaceId } : {})
      .sort({ created_at: 1, _id: 1 })
      .lean<EmbedBundleDoc[]>()
      .exec();
  }

  /** Adds items and allowed origins (each once); the bundle as it is now, or null when it is missing. */
  async addToBundle(
    id: string,
    add: { items?: EmbedItem[]; origins?: string[] },
    now = new Date(),
  ): Promise<EmbedBundle | null> {
    const items = add.items ?? [];
    const origins = add.origins ?? [];
    // One writer per bundle (the operator's CLI): read, merge, write the whole lists.
    const doc = await this.getBundle(id);
    if (!doc) return null;
    const merged = [...doc.items];
    for (const it of items) if (!merged.some((m) => m.kind === it.kind && m.ref === it.ref)) merged.push(it);
    const allowed = [...new Set([...doc.allowed_origins, ...origins])];
    await this.models.embedBundles.updateOne(
      { _id: id },
      { $set: { items: merged, allowed_origins: allowed, updated_at: now } },
    );
    return { ...doc, items: merged, allowed_origins: allowed, updated_at: now };
  }

  /** A new nonce (EIP-4361: alphanumeric, at least 8 characters) and its expiry; `save` stores it with the message written for it. */
  newNonce(now: Date): { nonce: string; expiresAt: Date } {
    return { nonce: ids.signInNonce(), expiresAt: new Date(now.getTime() + NONCE_TTL_MS) };
  }

  async saveNonce(i: {
    nonce: string;
    expiresAt: Date;
    bundleId: string;
    origin: string;
    wallet: string;
    message: string;
    now: Date;
  }): Promise<void> {
    const doc: EmbedNonceDoc = {
      _id: i.nonce,
      bundle_id: i.bundleId,
      origin: i.origin,
      wallet: i.wallet,
      message_sha256: sha256Hex(i.message),
      created_at: i.now,
      expires_at: i.expiresAt,
    };
    await this.models.embedNonces.collection.insertOne(doc as never);
  }

  /** The nonce, whether it is used up, and how many sign-ins with it failed: three point reads at once. */
  async nonceState(nonce: string): Promise<{ nonce: EmbedNonceDoc | null; used: boolean; failures: number }> {
    const [doc, use, failures] = await Promise.all([
      this.models.embedNonces.findById(nonce).lean<EmbedNonceDoc>().exec(),
      this.models.embedNonceUses.findById(nonce, { _id: 1 }).lean().exec(),
      this.models.embedNonceFailures.countDocuments({ nonce }).exec(),
    ]);
    return { nonce: doc ?? null, used: use !== null, failures };
  }

  /** True when `message` is exactly the text issued with this nonce. */
  isIssuedMessage(nonce: EmbedNonceDoc, message: string): boolean {
    return nonce.message_sha256 === sha256Hex(message);
  }

  /**
   * Records a failed sign-in with `nonce`; at `limit` failures the nonce is used up (the same
   * insert a successful sign-in makes), so it can never be exchanged for a token afterwards.
   */
  async recordFailure(nonce: NonceRef, limit: number, now: Date): Promise<void> {
    await this.models.embedNonceFailures.collection.insertOne({
      _id: ids.row(nonce._id),
      nonce: nonce._id,
      at: now,
      expires_at: nonce.expires_at,
    } as never);
    if ((await this.models.embedNonceFailures.countDocuments({ nonce: nonce._id }).exec()) >= limit)
      await this.useNonce(nonce, now);
  }

  /** True for the one caller that uses this nonce; every later caller gets false. */
  useNonce(nonce: NonceRef, now: Date): Promise<boolean> {
    // The row carries the nonce's expiry so housekeeping can delete it once it no longer decides anything.
    return insertOnce(this.models.embedNonceUses, { _id: nonce._id, used_at: now, expires_at: nonce.expires_at });
  }

  async issueToken(i: {
    wallet: string;
    bundleId: string;
    origin: string;
    via: EmbedTokenDoc['via'];
    /** The `act_` token it was exchanged for: its key, and its expiry, past which the widget token may not live. */
    accessToken?: { key: string; expiresAt: Date | null };
    now: Date;
  }): Promise<{ token: string; expiresAt: Date }> {
    const token = secret('emb_');
    const ttlEnd = i.now.getTime() + TOKEN_TTL_MS;
    const expiresAt = new Date(Math.min(ttlEnd, i.accessToken?.expiresAt?.getTime() ?? ttlEnd));
    const doc: EmbedTokenDoc = {
      _id: sha256Hex(token),
      wallet: i.wallet,
      bundle_id: i.bundleId,
      origin: i.origin,
      via: i.via,
      ...(i.accessToken ? { access_token_key: i.accessToken.key } : {}),
      created_at: i.now,
      expires_at: expiresAt,
    };
    await this.models.embedTokens.collection.insertOne(doc as never);
    return { token, expiresAt };
  }

  /** Signs a widget token out: deleted, so it authenticates nothing from then on. True when it existed. */
  async revokeToken(token: string): Promise<boolean> {
    return (await this.models.embedTokens.deleteOne({ _id: sha256Hex(token) })).deletedCount > 0;
  }

  async getToken(token: string): Promise<EmbedTokenDoc | null> {
    return (await this.models.embedTokens.findById(sha256Hex(token)).lean<EmbedTokenDoc>().exec()) ?? null;
  }
}
