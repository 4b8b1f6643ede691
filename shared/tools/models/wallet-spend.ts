import { Connection, Schema } from 'mongoose';

/**
 * A paid call's credits reserved against its wallet's daily budget, `_id` = `<wallet>|<request id>`.
 * Inserted before the call's day is summed (so racing calls see each other), deleted when the
 * call is refused or fails; a call that was charged keeps its row: today's rows are today's spend.
 */
export interface WalletSpendDoc {
  _id: string;
  wallet: string;
  /** Start of the UTC day the call counts against. */
  day: Date;
  credits: number;
  created_at: Date;
}

const schema = new Schema<WalletSpendDoc>(
  {
    _id: { type: String, required: true },
    wallet: { type: String, required: true },
    day: { type: Date, required: true },
    credits: { type: Number, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'wallet_spends', versionKey: false },
);
schema.index({ wallet: 1, day: 1 });

export function walletSpendModel(conn: Connection) {
  return conn.models.WalletSpend ?? conn.model<WalletSpendDoc>('WalletSpend', schema);
}
