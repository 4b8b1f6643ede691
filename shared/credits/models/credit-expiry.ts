import { Connection, Schema } from 'mongoose';

/** Grants that carry an expiry, so the sweep finds lapsed ones without scanning every wallet. */
export interface CreditExpiryDoc {
  _id: string;
  user_id: string;
  expires_at: Date;
}

const schema = new Schema<CreditExpiryDoc>(
  {
    _id: { type: String, required: true },
    user_id: { type: String, required: true },
    expires_at: { type: Date, required: true },
  },
  { collection: 'credit_expiry_queue', versionKey: false },
);
schema.index({ expires_at: 1 });

export function creditExpiryModel(conn: Connection) {
  return conn.models.CreditExpiry ?? conn.model<CreditExpiryDoc>('CreditExpiry', schema);
}
