import { Connection, Schema } from 'mongoose';

/** A workspace API key (`wak_…`). Only its sha256 is stored (`_id`). */
export interface WorkspaceApiKeyDoc {
  _id: string;
  key_id: string;
  workspace_id: string;
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

const schema = new Schema<WorkspaceApiKeyDoc>(
  {
    _id: { type: String, required: true },
    key_id: { type: String, required: true, unique: true },
    workspace_id: { type: String, required: true },
    label: { type: String, default: null },
    created_at: { type: Date, required: true },
    revoked_at: { type: Date, default: null },
  },
  { collection: 'workspace_api_keys', versionKey: false },
);
schema.index({ workspace_id: 1 });

export function workspaceApiKeyModel(conn: Connection) {
  return conn.models.WorkspaceApiKey ?? conn.model<WorkspaceApiKeyDoc>('WorkspaceApiKey', schema);
}
