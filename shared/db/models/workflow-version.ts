import { Connection, Schema } from 'mongoose';

/** One published version of a workflow: `_id` is `<workflow_id>@<semver>`, inserted once, never changed. */
export interface WorkflowVersionDoc {
  _id: string;
  workflow_id: string;
  version: string;
  graph_json: string;
  credentials: string[];
  published_at: Date;
}

const schema = new Schema<WorkflowVersionDoc>(
  {
    _id: { type: String, required: true },
    workflow_id: { type: String, required: true },
    version: { type: String, required: true },
    graph_json: { type: String, required: true },
    credentials: { type: [String], default: [] },
    published_at: { type: Date, required: true },
  },
  { collection: 'workflow_versions', versionKey: false },
);
schema.index({ workflow_id: 1, published_at: 1 });

export function workflowVersionModel(conn: Connection) {
  return conn.models.WorkflowVersion ?? conn.model<WorkflowVersionDoc>('WorkflowVersion', schema);
}
