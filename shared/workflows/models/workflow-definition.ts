import { Connection, Schema } from 'mongoose';

/**
 * A stored workflow definition. Nodes and edges are free-form user objects, so they are kept
 * as JSON text (`graph_json`): FerretDB refuses keys that start
 * with `$` or contain `.`. shared/workflows/repository.ts decodes them to plain objects.
 * Published versions live in workflow_versions (one insert each, under `<id>@<version>`): the
 * latest is the newest of those rows, so no update of this document decides it.
 */
export interface WorkflowDefinitionDoc {
  _id: string;
  workspace_id: string | null;
  name: string;
  description: string;
  graph_json: string;
  credentials: string[];
  status: 'draft' | 'published';
  /** A pointer to the newest version that older code kept here; no longer written or read. */
  latest_version?: string | null;
  created_at: Date;
  updated_at: Date;
}

const schema = new Schema<WorkflowDefinitionDoc>(
  {
    _id: { type: String, required: true },
    workspace_id: { type: String, default: null },
    name: { type: String, required: true },
    description: { type: String, default: '' },
    graph_json: { type: String, required: true },
    credentials: { type: [String], default: [] },
    status: { type: String, required: true },
    latest_version: { type: String },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'workflow_definitions', versionKey: false },
);
schema.index({ workspace_id: 1, created_at: 1 });

export function workflowDefinitionModel(conn: Connection) {
  return conn.models.WorkflowDefinition ?? conn.model<WorkflowDefinitionDoc>('WorkflowDefinition', schema);
}
