import { Connection, Schema } from 'mongoose';

/** What a payment buys; the settlement workflow applies it once the money has moved. */
export type PaymentPurpose =
  | {
      kind: 'credit_purchase';
      wallet: string;
      credits: number;
      request_id?: string;
      email?: string;
      transaction_hash?: string;
      /** sha256 of the fields a request_id is bound to (wallet, credits, chain, token, payer). */
      fingerprint?: string;
    }
  | { kind: 'tool_call'; product: string; product_id: string; action: string; params_sha256: string };

/** `delivering`: verified, the paid tool call is running; settled only after it succeeded (never swept). */
export const X402_PAYMENT_STATES = ['delivering', 'verified', 'submitted', 'settled', 'completed', 'failed'] as const;
export type X402PaymentState = (typeof X402_PAYMENT_STATES)[number];

/**
 * One x402 payment. `_id` is the payment's identity (network, asset, payer, authorization
 * nonce): inserting it is what decides "already in progress". `purpose_key` (unique) ties it
 * to what it buys, so one purchase request is paid at most once.
 */
export interface X402PaymentDoc {
  _id: string;
  purpose_key: string;
  purpose: PaymentPurpose;
  status: X402PaymentState;
  network: string;
  chain_id: number;
  asset: string;
  token_symbol: string;
  payer: string;
  pay_to: string;
  amount_base_units: string;
  amount_usd: number;
  resource_url: string;
  authorization: { from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: string };
  signature: string;
  /** The payment payload and the requirements it was verified against, as JSON text (keys stay ours). */
  payload_json: string;
  requirements_json: string;
  tx_hash?: string;
  block_number?: string;
  reconciled?: boolean;
  /** The chain's block when the payment was verified: the authorization was unused then, so log searches start here. */
  verified_block?: string;
  /** Set before a remote facilitator is asked to settle: from then on, the chain decides what happened. */
  settle_requested_at?: Date;
  /** Our transactions that were dropped or replaced before being mined, oldest first. */
  replaced_tx_hashes?: string[];
  /** A failed payment's authorization was used by this transaction, which did not pay us. */
  conflicting_tx_hash?: string;
  settled_at?: Date;
  completed_at?: Date;
  grant_id?: string;
  /** A paid tool call's result as JSON text, answered again to a replay of the same payment. */
  result_json?: string;
  error_code?: string;
  error_message?: string;
  created_at: Date;
  updated_at: Date;
}

const schema = new Schema<X402PaymentDoc>(
  {
    _id: { type: String, required: true },
    purpose_key: { type: String, required: true, unique: true },
    purpose: { type: Schema.Types.Mixed, required: true },
    status: { type: String, required: true },
    network: { type: String, required: true },
    chain_id: { type: Number, required: true },
    asset: { type: String, required: true },
    token_symbol: { type: String, required: true },
    payer: { type: String, required: true },
    pay_to: { type: String, required: true },
    amount_base_units: { type: String, required: true },
    amount_usd: { type: Number, required: true },
    resource_url: { type: String, required: true },
    authorization: { type: Schema.Types.Mixed, required: true },
    signature: { type: String, required: true },
    payload_json: { type: String, required: true },
    requirements_json: { type: String, required: true },
    tx_hash: String,
    block_number: String,
    reconciled: Boolean,
    verified_block: String,
    settle_requested_at: Date,
    replaced_tx_hashes: [String],
    conflicting_tx_hash: String,
    settled_at: Date,
    completed_at: Date,
    grant_id: String,
    result_json: String,
    error_code: String,
    error_message: String,
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'x402_payments', versionKey: false },
);
schema.index({ payer: 1, created_at: -1 });
// A purchase retried with only its transaction_hash finds its recorded result.
schema.index({ tx_hash: 1 });
// The stale-payment sweep: verified payments whose settlement never started.
schema.index({ status: 1, created_at: 1 });
// The operator's console lists payments newest first, all or of one status, keyset-paged.
schema.index({ created_at: -1, _id: -1 });
schema.index({ status: 1, created_at: -1, _id: -1 });

export function x402PaymentModel(conn: Connection) {
  return conn.models.X402Payment ?? conn.model<X402PaymentDoc>('X402Payment', schema);
}
