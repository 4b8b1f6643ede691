import { Connection, Schema } from 'mongoose';

/** One exposed item of a bundle: a published workflow or a product (by id). */
export interface EmbedItem {
  kind: 'workflow' | 'product';
  ref: string;
}

/**
 * A bundle: what a workspace publishes for embedding and the embed's settings. Runs of its
 * workflows are the agent group's (charged to the group's budget); products are paid by the
 * signed-in wallet. `allowed_origins` are the host pages that may frame it and sign in.
 */
export interface EmbedBundleDoc {
  _id: string;
  workspace_id: string;
  group_id: string;
  name: string;
  allowed_origins: string[];
  items: EmbedItem[];
  created_at: Date;
  updated_at: Date;
}

/**
 * A sign-in nonce handed to one widget page: bound to its bundle, host origin and wallet, and to
 * the exact message issued with it (its sha256), so only that text signed is accepted; expires.
 */
export interface EmbedNonceDoc {
  _id: string;
  bundle_id: string;
  origin: string;
  wallet: string;
  message_sha256: string;
  created_at: Date;
  expires_at: Date;
}

/** One failed sign-in with a nonce: each is its own insert, so concurrent failures are all counted. */
export interface EmbedNonceFailureDoc {
  _id: string;
  nonce: string;
  at: Date;
  /** The nonce's expiry: past it the row counts for nothing and housekeeping deletes it (absent on older rows). */
  expires_at?: Date;
}

/** The one use of a nonce: taken by an insert under the nonce, so a second sign-in with it fails. */
export interface EmbedNonceUseDoc {
  _id: string;
  used_at: Date;
  /** The nonce's expiry: past it the nonce is refused anyway, so housekeeping may delete the row (absent on older rows). */
  expires_at?: Date;
}

/** A widget token (`emb_…`, stored as its sha256): one wallet, one bundle, one host origin, short-lived. */
export interface EmbedTokenDoc {
  _id: string;
  wallet: string;
  bundle_id: string;
  origin: string;
  via: 'siwe' | 'access_token';
  /** For `access_token`: the `act_` token's key (its sha256); the widget token works only while that token does. */
  access_token_key?: string;
  created_at: Date;
  expires_at: Date;
}

const itemSchema = new Schema<EmbedItem>(
  { kind: { type: String, required: true }, ref: { type: String, required: true } },
  { _id: false },
);

const bundleSchema = new Schema<EmbedBundleDoc>(
  {
    _id: { type: String, required: true },
    workspace_id: { type: String, required: true },
    group_id: { type: String, required: true },
    name: { type: String, required: true },
    allowed_origins: { type: [String], default: [] },
    items: { type: [itemSchema], default: [] },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'embed_bundles', versionKey: false },
);
bundleSchema.index({ workspace_id: 1, created_at: 1 });
bundleSchema.index({ 'items.ref': 1 });

const nonceSchema = new Schema<EmbedNonceDoc>(
  {
    _id: { type: String, required: true },
    bundle_id: { type: String, required: true },
    origin: { type: String, required: true },
    wallet: { type: String, required: true },
    message_sha256: { type: String, required: true },
    created_at: { type: Date, required: true },
    expires_at: { type: Date, required: true },
  },
  { collection: 'embed_nonces', versionKey: false },
);
nonceSchema.index({ expires_at: 1 });

const nonceFailureSchema = new Schema<EmbedNonceFailureDoc>(
  {
    _id: { type: String, required: true },
    nonce: { type: String, required: true },
    at: { type: Date, required: true },
    expires_at: Date,
  },
  { collection: 'embed_nonce_failures', versionKey: false },
);
nonceFailureSchema.index({ nonce: 1 });
nonceFailureSchema.index({ expires_at: 1 });

const nonceUseSchema = new Schema<EmbedNonceUseDoc>(
  { _id: { type: String, required: true }, used_at: { type: Date, required: true }, expires_at: Date },
  { collection: 'embed_nonce_uses', versionKey: false },
);
nonceUseSchema.index({ expires_at: 1 });

const tokenSchema = new Schema<EmbedTokenDoc>(
  {
    _id: { type: String, required: true },
    wallet: { type: String, required: true },
    bundle_id: { type: String, required: true },
    origin: { type: String, required: true },
    via: { type: String, required: true },
    access_token_key: { type: String },
    created_at: { type: Date, required: true },
    expires_at: { type: Date, required: true },
  },
  { collection: 'embed_tokens', versionKey: false },
);
tokenSchema.index({ expires_at: 1 });

export function embedBundleModel(conn: Connection) {
  return conn.models.EmbedBundle ?? conn.model<EmbedBundleDoc>('EmbedBundle', bundleSchema);
}
export function embedNonceModel(conn: Connection) {
  return conn.models.EmbedNonce ?? conn.model<EmbedNonceDoc>('EmbedNonce', nonceSchema);
}
export function embedNonceUseModel(conn: Connection) {
  return conn.models.EmbedNonceUse ?? conn.model<EmbedNonceUseDoc>('EmbedNonceUse', nonceUseSchema);
}
export function embedNonceFailureModel(conn: Connection) {
  return conn.models.EmbedNonceFailure ?? conn.model<EmbedNonceFailureDoc>('EmbedNonceFailure', nonceFailureSchema);
}
export function embedTokenModel(conn: Connection) {
  return conn.models.EmbedToken ?? conn.model<EmbedTokenDoc>('EmbedToken', tokenSchema);
}
