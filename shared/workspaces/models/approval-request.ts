import { Connection, Schema } from 'mongoose';

export type ApprovalKind = 'add_workflow' | 'credential' | 'model_endpoint';
export type ApprovalStatus = 'open' | 'approved';

/**
 * Something an operator must set up before a trigger can succeed. `open_key` (unique) holds
 * one open request per kind and target; approving rewrites it to `<open_key>#<id>` so the
 * next block can open a fresh one.
 */
export interface ApprovalRequestDoc {
  _id: string;
  open_key: string;
  kind: ApprovalKind;
  status: ApprovalStatus;
  workspace_id: string;
  budget_id: string | null;
  workflow_id: string | null;
  group_id: string | null;
  credential_name: string | null;
  /** add_workflow: the published version approving it pins (absent on older requests: the latest at first use). */
  workflow_version?: string | null;
  reason: string;
  created_at: Date;
  approved_at: Date | null;
  approved_by: string | null;
}

const schema = new Schema<ApprovalRequestDoc>(
  {
    _id: { type: String, required: true },
    open_key: { type: String, required: true, unique: true },
    kind: { type: String, required: true },
    status: { type: String, required: true },
    workspace_id: { type: String, required: true },
    budget_id: { type: String, default: null },
    workflow_id: { type: String, default: null },
    group_id: { type: String, default: null },
    credential_name: { type: String, default: null },
    workflow_version: { type: String, default: null },
    reason: { type: String, required: true },
    created_at: { type: Date, required: true },
    approved_at: { type: Date, default: null },
    approved_by: { type: String, default: null },
  },
  { collection: 'approval_requests', versionKey: false },
);
schema.index({ status: 1, created_at: 1 });
schema.index({ workspace_id: 1, created_at: 1 });

export function approvalRequestModel(conn: Connection) {
  return conn.models.ApprovalRequest ?? conn.model<ApprovalRequestDoc>('ApprovalRequest', schema);
}
