import { Connection, Schema } from 'mongoose';

/** An operator's customer: owns budgets, workflows, credentials and agent groups. */
export interface WorkspaceDoc {
  _id: string;
  name: string;
  created_at: Date;
}

const schema = new Schema<WorkspaceDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'workspaces', versionKey: false },
);

export function workspaceModel(conn: Connection) {
  return conn.models.Workspace ?? conn.model<WorkspaceDoc>('Workspace', schema);
}
