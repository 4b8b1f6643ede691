import { Connection, Schema } from 'mongoose';

/**
 * A sign-in-with-x nonce, used once. `_id` is `<address>:<nonce>`: inserting it is what makes
 * a signed SIWX message single-use. `expires_at` is the message's expiry: an hour past it the
 * housekeeping sweep deletes the row (shared/payments/housekeeping.ts); correctness never needs
 * that (a message past its expiry is refused before the nonce is looked at).
 */
export interface SiwxNonceDoc {
  _id: string;
  expires_at: Date;
  created_at: Date;
}

const schema = new Schema<SiwxNonceDoc>(
  {
    _id: { type: String, required: true },
    expires_at: { type: Date, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'siwx_nonces', versionKey: false },
);
schema.index({ expires_at: 1 });

export function siwxNonceModel(conn: Connection) {
  return conn.models.SiwxNonce ?? conn.model<SiwxNonceDoc>('SiwxNonce', schema);
}
