import { Connection, Schema } from 'mongoose';

/**
 * How a payment authorized for delivery first (a paid tool call) ended: `delivered` (its result
 * is kept and it settles) or `abandoned` (never settled, nothing charged). `_id` is the payment
 * id: inserting it is the one decision, so the API delivering late and the sweep abandoning a
 * delivery it took for dead can never both win.
 */
export interface X402DeliveryOutcomeDoc {
  _id: string;
  outcome: 'delivered' | 'abandoned';
  created_at: Date;
}

const schema = new Schema<X402DeliveryOutcomeDoc>(
  {
    _id: { type: String, required: true },
    outcome: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'x402_delivery_outcomes', versionKey: false },
);

export function x402DeliveryOutcomeModel(conn: Connection) {
  return conn.models.X402DeliveryOutcome ?? conn.model<X402DeliveryOutcomeDoc>('X402DeliveryOutcome', schema);
}
