import { Connection, Schema } from 'mongoose';

export type SignatureScheme = 'v1' | 'v1a';

/**
 * A group's callback signing key after a rotation (`_id` = `<group>:<version>`, inserted once, so
 * two rotations racing cannot both take a version). Version 0 is the secret the group was created
 * with (agent_groups.webhook_secret_enc, always `v1`). The key before this one keeps signing until
 * `previous_valid_until` (the overlap window).
 */
export interface SigningKeyDoc {
  _id: string;
  group_id: string;
  version: number;
  scheme: SignatureScheme;
  /** Sealed like a credential: `v1` the whsec_ secret, `v1a` the ed25519 private key (PKCS#8 DER, base64). */
  secret_enc: string;
  /** `v1a` only: the public key as Standard Webhooks writes it (`whpk_` + base64 of the 32 raw bytes). */
  public_key: string | null;
  created_at: Date;
  previous_valid_until: Date;
}

const schema = new Schema<SigningKeyDoc>(
  {
    _id: { type: String, required: true },
    group_id: { type: String, required: true },
    version: { type: Number, required: true },
    scheme: { type: String, required: true },
    secret_enc: { type: String, required: true },
    public_key: { type: String, default: null },
    created_at: { type: Date, required: true },
    previous_valid_until: { type: Date, required: true },
  },
  { collection: 'agent_group_signing_keys', versionKey: false },
);
schema.index({ group_id: 1, version: -1 });

export function signingKeyModel(conn: Connection) {
  return conn.models.SigningKey ?? conn.model<SigningKeyDoc>('SigningKey', schema);
}
