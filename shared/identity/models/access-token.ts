import { Connection, Schema } from 'mongoose';

/** A bearer token for {api_url}. Only the sha256 of the token is stored (`_id`). */
export interface AccessTokenDoc {
  _id: string;
  token_id: string;
  wallet_address: string;
  label?: string;
  created_at: Date;
  created_by: 'wallet_signature' | 'operator';
  expires_at?: Date | null;
  revoked_at?: Date | null;
  last_used_at?: Date | null;
}

const schema = new Schema<AccessTokenDoc>(
  {
    _id: { type: String, required: true },
    token_id: { type: String, required: true, unique: true },
    wallet_address: { type: String, required: true },
    label: String,
    created_at: { type: Date, required: true },
    created_by: { type: String, required: true },
    expires_at: Date,
    revoked_at: Date,
    last_used_at: Date,
  },
  { collection: 'access_tokens', versionKey: false },
);
schema.index({ wallet_address: 1 });

export function accessTokenModel(conn: Connection) {
  return conn.models.AccessToken ?? conn.model<AccessTokenDoc>('AccessToken', schema);
}
