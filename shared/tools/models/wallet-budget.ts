import { Connection, Schema } from 'mongoose';

/** A wallet's optional cap on tool spending (docs/tools.md, "Budgets"); `_id` is the lower-case wallet. null: no cap. */
export interface WalletBudgetDoc {
  _id: string;
  per_call_credits: number | null;
  daily_credits: number | null;
  set_by: 'wallet' | 'operator';
  updated_at: Date;
}

const schema = new Schema<WalletBudgetDoc>(
  {
    _id: { type: String, required: true },
    per_call_credits: { type: Number, default: null },
    daily_credits: { type: Number, default: null },
    set_by: { type: String, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'wallet_budgets', versionKey: false },
);

export function walletBudgetModel(conn: Connection) {
  return conn.models.WalletBudget ?? conn.model<WalletBudgetDoc>('WalletBudget', schema);
}
