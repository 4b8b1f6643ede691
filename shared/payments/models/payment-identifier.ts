import { Connection, Schema } from 'mongoose';

/**
 * A payer's payment-identifier, taken once its payment verified. `_id` is
 * `payment-identifier:<payer>:<id>`: inserting it decides which payment the id names;
 * `fingerprint` is what the id is bound to (the request it paid for), so the same id with another
 * request is a conflict. Kept PAYMENT_IDENTIFIER_RETENTION_MS (24 h) from `created_at`, then
 * deleted by the housekeeping sweep (shared/payments/housekeeping.ts).
 */
export interface PaymentIdentifierDoc {
  _id: string;
  payment_id: string;
  fingerprint: string;
  created_at: Date;
}

const schema = new Schema<PaymentIdentifierDoc>(
  {
    _id: { type: String, required: true },
    payment_id: { type: String, required: true },
    fingerprint: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'payment_identifiers', versionKey: false },
);
schema.index({ created_at: 1 });

export function paymentIdentifierModel(conn: Connection) {
  return conn.models.PaymentIdentifier ?? conn.model<PaymentIdentifierDoc>('PaymentIdentifier', schema);
}
