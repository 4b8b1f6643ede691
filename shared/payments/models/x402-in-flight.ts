import { Connection, Schema } from 'mongoose';

/** One payment counted against its payer's balance while it is delivered and settled. */
export interface InFlightPayment {
  payment_id: string;
  amount_base_units: string;
  /** The authorization's validBefore (unix seconds): after it the payment can never move money. */
  valid_before: string;
}

/**
 * One position of a payer's in-flight log: `_id` is `<payer key>:<seq>` (payer key = network,
 * asset and payer), and each entry carries every payment still in flight after it, so the
 * latest entry is the payer's in-flight total. The unique `_id` decides each position, as in
 * the credit ledger (FerretDB applies no filtered update atomically).
 */
export interface X402InFlightDoc {
  _id: string;
  payer_key: string;
  seq: number;
  open: InFlightPayment[];
  created_at: Date;
}

const schema = new Schema<X402InFlightDoc>(
  {
    _id: { type: String, required: true },
    payer_key: { type: String, required: true },
    seq: { type: Number, required: true },
    open: { type: [{ _id: false, payment_id: String, amount_base_units: String, valid_before: String }], default: [] },
    created_at: { type: Date, required: true },
  },
  { collection: 'x402_in_flight', versionKey: false },
);

export function x402InFlightModel(conn: Connection) {
  return conn.models.X402InFlight ?? conn.model<X402InFlightDoc>('X402InFlight', schema);
}
