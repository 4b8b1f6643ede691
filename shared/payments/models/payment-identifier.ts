import { Connection, Schema } from 'mongoose';

/**
 * A payer's payment-identifier, taken once. `_id` is `payment-identifier:<payer>:<id>`:
 * inserting it decides which payment the id names; `fingerprint` is what the id is bound to
 * (the request it paid for), so the same id with another request is a conflict.
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

export function paymentIdentifierModel(conn: Connection) {
  return conn.models.PaymentIdentifier ?? conn.model<PaymentIdentifierDoc>('PaymentIdentifier', schema);
}
