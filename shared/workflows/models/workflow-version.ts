import { Connection, Schema } from 'mongoose';

/**
 * One published version of a workflow: `_id` is `<workflow_id>@<semver>`, inserted once, never
 * changed. `order_key` sorts like the version, so the latest is the first row of an index read;
 * it is absent on rows written before it existed until the first read of their workflow sets it.
 */
export interface WorkflowVersionDoc {
  _id: string;
  workflow_id: string;
  version: string;
  order_key?: string;
  graph_json: string;
  credentials: string[];
  published_at: Date;
}

const schema = new Schema<WorkflowVersionDoc>(
  {
    _id: { type: String, required: true },
    workflow_id: { type: String, required: true },
    version: { type: String, required: true },
    order_key: { type: String },
    graph_json: { type: String, required: true },
    credentials: { type: [String], default: [] },
    published_at: { type: Date, required: true },
  },
  { collection: 'workflow_versions', versionKey: false },
);
schema.index({ workflow_id: 1, published_at: 1 });
schema.index({ workflow_id: 1, order_key: -1 });

export function workflowVersionModel(conn: Connection) {
  return conn.models.WorkflowVersion ?? conn.model<WorkflowVersionDoc>('WorkflowVersion', schema);
}
