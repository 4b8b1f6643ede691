import { Connection, Schema } from 'mongoose';

/**
 * "This workflow is on this budget": `_id` is `<budget_id>:<workflow_id>`, inserted once.
 * `version` is the published version the budget approved (runs execute exactly it); absent or
 * null on links made before pinning or for an unpublished workflow: pinned to the latest
 * published version at first use (docs/decisions.md, "Budget approvals pin a version").
 */
export interface BudgetWorkflowDoc {
  _id: string;
  budget_id: string;
  workflow_id: string;
  version?: string | null;
  created_at: Date;
}

const schema = new Schema<BudgetWorkflowDoc>(
  {
    _id: { type: String, required: true },
    budget_id: { type: String, required: true },
    workflow_id: { type: String, required: true },
    version: { type: String, default: null },
    created_at: { type: Date, required: true },
  },
  { collection: 'budget_workflows', versionKey: false },
);
schema.index({ budget_id: 1, created_at: 1 });

export function budgetWorkflowModel(conn: Connection) {
  return conn.models.BudgetWorkflow ?? conn.model<BudgetWorkflowDoc>('BudgetWorkflow', schema);
}
