import { Connection, Schema } from 'mongoose';

/**
 * The version an unpinned budget link (made without a version) was pinned to at its first run.
 * `_id` is the link's `<budget_id>:<workflow_id>`: the first insert decides, so concurrent first
 * runs agree on one version. A filtered update on the link could not decide it: FerretDB 1.x
 * reads, then writes, so two racers could both see the link unpinned and each run its own version.
 * A version the link itself carries (set when it was made, or moved forward by an approval) wins.
 */
export interface BudgetWorkflowPinDoc {
  _id: string;
  version: string;
  pinned_at: Date;
}

const schema = new Schema<BudgetWorkflowPinDoc>(
  {
    _id: { type: String, required: true },
    version: { type: String, required: true },
    pinned_at: { type: Date, required: true },
  },
  { collection: 'budget_workflow_pins', versionKey: false },
);

export function budgetWorkflowPinModel(conn: Connection) {
  return conn.models.BudgetWorkflowPin ?? conn.model<BudgetWorkflowPinDoc>('BudgetWorkflowPin', schema);
}
