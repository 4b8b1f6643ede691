import { Connection, Schema } from 'mongoose';

/**
 * A credit allowance of a workspace (per UTC day and in total), funded from the workspace's
 * ledger account `ws:<workspace_id>`. `key_hash` is the sha256 of its budget key (`bk_…`).
 * Which workflows it lists lives in budget_workflows (one insert per pair, never a filtered
 * update of this document).
 */
export interface BudgetDoc {
  _id: string;
  workspace_id: string;
  name: string;
  daily_credits: number | null;
  total_credits: number | null;
  /** Its groups may call catalog tools directly (MCP), paid from the workspace; absent on older budgets: no. */
  catalog_tools?: boolean;
  key_hash: string;
  created_at: Date;
}

const schema = new Schema<BudgetDoc>(
  {
    _id: { type: String, required: true },
    workspace_id: { type: String, required: true },
    name: { type: String, required: true },
    daily_credits: { type: Number, default: null },
    total_credits: { type: Number, default: null },
    catalog_tools: { type: Boolean, default: false },
    key_hash: { type: String, required: true, unique: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'budgets', versionKey: false },
);
schema.index({ workspace_id: 1 });

export function budgetModel(conn: Connection) {
  return conn.models.Budget ?? conn.model<BudgetDoc>('Budget', schema);
}
