import { Connection, Schema } from 'mongoose';

/**
 * One account nonce of a settlement key, claimed once for one payment. `_id` is
 * `<chain key>:<address>:<nonce>` (the chain key names the chain instance by its genesis hash,
 * so a reset dev chain starts afresh): inserting it is what decides who sends with that nonce,
 * across every worker process. The signed transaction is stored with the claim, so whoever
 * retries the payment can rebroadcast exactly it and a claimed nonce never stays a gap.
 */
export interface SettlementNonceDoc {
  _id: string;
  chain_key: string;
  address: string;
  nonce: number;
  payment_id: string;
  tx_hash: string;
  raw_tx: string;
  /** The nonce was consumed by another transaction; the payment moved to a newer claim. */
  superseded?: boolean;
  created_at: Date;
}

const schema = new Schema<SettlementNonceDoc>(
  {
    _id: { type: String, required: true },
    chain_key: { type: String, required: true },
    address: { type: String, required: true },
    nonce: { type: Number, required: true },
    payment_id: { type: String, required: true },
    tx_hash: { type: String, required: true },
    raw_tx: { type: String, required: true },
    superseded: Boolean,
    created_at: { type: Date, required: true },
  },
  { collection: 'settlement_nonces', versionKey: false },
);
schema.index({ chain_key: 1, address: 1, nonce: -1 });
schema.index({ payment_id: 1, nonce: -1 });

export function settlementNonceModel(conn: Connection) {
  return conn.models.SettlementNonce ?? conn.model<SettlementNonceDoc>('SettlementNonce', schema);
}
