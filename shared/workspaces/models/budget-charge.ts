import { Connection, Schema } from 'mongoose';

/**
 * Credits a budget has committed: `_id` = `<run_id>:<node_id>` (one per paid node), inserted
 * before the ledger hold and deleted if the call does not go through. A budget's spend is the
 * sum of its rows, so concurrent runs see each other's in-flight calls (insert, then check).
 */
export interface BudgetChargeDoc {
  _id: string;
  budget_id: string;
  credits: number;
  created_at: Date;
}

const schema = new Schema<BudgetChargeDoc>(
  {
    _id: { type: String, required: true },
    budget_id: { type: String, required: true },
    credits: { type: Number, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'budget_charges', versionKey: false },
);
schema.index({ budget_id: 1, created_at: 1 });

export function budgetChargeModel(conn: Connection) {
  return conn.models.BudgetCharge ?? conn.model<BudgetChargeDoc>('BudgetCharge', schema);
}
