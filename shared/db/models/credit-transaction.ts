import { Connection, Schema } from 'mongoose';
import type { Grant } from '../../credits/ledger';

/**
 * The credit ledger is this append-only log. Each entry has the wallet's next `seq`; the unique
 * (user_id, seq) index makes exactly one writer win each position, on MongoDB and FerretDB alike,
 * so the entry's `live_grants` (the wallet's spendable grants after it) is always the truth.
 * `_id` is the idempotency key (`purchase:<wallet>:<request_id>`, `grant:<grant id>`, ...).
 */
export interface CreditTransactionDoc {
  _id: string;
  user_id: string;
  seq: number;
  transaction_type: 'grant' | 'expiration' | 'revocation' | 'purchase';
  amount_credits: number;
  amount_usd: number;
  balance_after_credits: number;
  balance_after_usd: number;
  date_created: Date;
  grant_id?: string;
  request_id?: string;
  details?: string;
  /** On grant entries: the grant as issued (history lists grants from these). */
  grant?: Grant;
  live_grants: Grant[];
}

const grantSchema = new Schema<Grant>(
  {
    _id: { type: String, required: true },
    amount_credits: { type: Number, required: true },
    remaining_credits: { type: Number, required: true },
    amount_usd: { type: Number, required: true },
    credit_type: { type: String, required: true },
    // Only our own keys go here (tx hash, network, payer): FerretDB refuses '$' and '.' in keys.
    source_metadata: { type: Schema.Types.Mixed },
    date_created: { type: Date, required: true },
    pooled_at: Date,
    expires_at: Date,
    revoked_at: Date,
  },
  { _id: false },
);

const schema = new Schema<CreditTransactionDoc>(
  {
    _id: { type: String, required: true },
    user_id: { type: String, required: true },
    seq: { type: Number, required: true },
    transaction_type: { type: String, required: true },
    amount_credits: { type: Number, required: true },
    amount_usd: { type: Number, required: true },
    balance_after_credits: { type: Number, required: true },
    balance_after_usd: { type: Number, required: true },
    date_created: { type: Date, required: true },
    grant_id: String,
    request_id: String,
    details: String,
    grant: { type: grantSchema, required: false },
    live_grants: { type: [grantSchema], default: [] },
  },
  { collection: 'credit_transactions', versionKey: false },
);
schema.index({ user_id: 1, seq: -1 }, { unique: true });
schema.index({ user_id: 1, transaction_type: 1, seq: -1 });

export function creditTransactionModel(conn: Connection) {
  return conn.models.CreditTransaction ?? conn.model<CreditTransactionDoc>('CreditTransaction', schema);
}
