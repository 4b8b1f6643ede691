import { Connection, Schema } from 'mongoose';
import type { Grant, OpenHold } from '../ledger';

/**
 * The credit ledger is this append-only log. An entry's `_id` is `<wallet>:<seq>`: the unique
 * `_id` makes exactly one writer win each position, on MongoDB and FerretDB alike, and a reader
 * reaches any position with a lookup by `_id` (the only lookup FerretDB serves without a scan).
 * `op_id` (unique) is the idempotency key and the transaction id clients see
 * (`purchase:<wallet>:<request_id>`, `grant:<grant id>`, ...).
 */
export interface CreditTransactionDoc {
  _id: string;
  op_id: string;
  user_id: string;
  seq: number;
  /**
   * `hold`, `release` and `takeover` are internal entries (reserved, given back, a later worker
   * attempt now owns the hold); clients see the other four.
   */
  transaction_type: 'grant' | 'expiration' | 'revocation' | 'purchase' | 'hold' | 'release' | 'takeover';
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
  /** Holds reserved and not yet captured or released, as of this entry. */
  open_holds?: OpenHold[];
  /**
   * On hold entries only: the UTC minute the hold was taken in (`2026-11-23T21:30`). The
   * stale-hold healer reads the ledger bucket by bucket past its watermark (an equality: the
   * index serves it on MongoDB; FerretDB pushes it down to a PostgreSQL scan) instead of a
   * queue row per hold.
   */
  hold_bucket?: string;
  /**
   * On the entry that settles a hold (`purchase` or `release`): what became of the call the hold
   * paid for, as JSON text the caller chose (shared/tools/holds.ts). A retry of the request
   * answers from it; written with the settlement, so outcome and money never disagree.
   */
  outcome?: string;
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
    op_id: { type: String, required: true, unique: true },
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
    open_holds: { type: Schema.Types.Mixed, required: false },
    hold_bucket: { type: String, required: false },
    outcome: { type: String, required: false },
  },
  { collection: 'credit_transactions', versionKey: false },
);
schema.index({ user_id: 1, seq: -1 }, { unique: true });
schema.index({ user_id: 1, transaction_type: 1, seq: -1 });
schema.index({ hold_bucket: 1 });

export function creditTransactionModel(conn: Connection) {
  return conn.models.CreditTransaction ?? conn.model<CreditTransactionDoc>('CreditTransaction', schema);
}

export function ledgerEntryId(wallet: string, seq: number): string {
  return `${wallet}:${seq}`;
}
