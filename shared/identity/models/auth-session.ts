import { Connection, Schema } from 'mongoose';

/** A session nonce: belongs to one wallet, expires. `_id` is the nonce itself. */
export interface AuthSessionDoc {
  _id: string;
  wallet_address: string;
  created_at: Date;
  expires_at: Date;
}

const schema = new Schema<AuthSessionDoc>(
  {
    _id: { type: String, required: true },
    wallet_address: { type: String, required: true },
    created_at: { type: Date, required: true },
    expires_at: { type: Date, required: true },
  },
  { collection: 'auth_sessions', versionKey: false },
);
schema.index({ expires_at: 1 });

export function authSessionModel(conn: Connection) {
  return conn.models.AuthSession ?? conn.model<AuthSessionDoc>('AuthSession', schema);
}
