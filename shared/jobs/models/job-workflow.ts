import { Connection, Schema } from 'mongoose';

/**
 * The job side of a workflow a wallet authors for a `workflow_creation` job. The graph, drafts
 * and published versions live in workflow_definitions / workflow_versions (shared/workflows);
 * this row says who owns the workflow, which job and reservation it was made under, and the
 * listing fields the definition does not carry. `_id` is the workflow id.
 */
export interface JobWorkflowDoc {
  _id: string;
  job_id: string;
  wallet: string;
  reservation_id: string;
  categories: string[];
  industry_tags: string[];
  time_saved_minutes: number | null;
  mcp_server_name: string | null;
  default_export_target: string | null;
  created_at: Date;
  updated_at: Date;
}

const schema = new Schema<JobWorkflowDoc>(
  {
    _id: { type: String, required: true },
    job_id: { type: String, required: true },
    wallet: { type: String, required: true },
    reservation_id: { type: String, required: true },
    categories: { type: [String], default: [] },
    industry_tags: { type: [String], default: [] },
    time_saved_minutes: { type: Number, default: null },
    mcp_server_name: { type: String, default: null },
    default_export_target: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'job_workflows', versionKey: false },
);
schema.index({ wallet: 1 });
schema.index({ job_id: 1 });
schema.index({ categories: 1 });
schema.index({ industry_tags: 1 });

export function jobWorkflowModel(conn: Connection) {
  return conn.models.JobWorkflow ?? conn.model<JobWorkflowDoc>('JobWorkflow', schema);
}
