import { Connection, Schema } from 'mongoose';

/**
 * A workspace secret a workflow needs, AES-256-GCM encrypted with the key from config
 * (`ciphertext` = `v1.<iv>.<tag>.<data>`, base64url). `_id` is `<workspace_id>:<name>`.
 */
export interface CredentialDoc {
  _id: string;
  workspace_id: string;
  name: string;
  ciphertext: string;
  created_at: Date;
  updated_at: Date;
}

const schema = new Schema<CredentialDoc>(
  {
    _id: { type: String, required: true },
    workspace_id: { type: String, required: true },
    name: { type: String, required: true },
    ciphertext: { type: String, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'credentials', versionKey: false },
);
schema.index({ workspace_id: 1 });

export function credentialModel(conn: Connection) {
  return conn.models.Credential ?? conn.model<CredentialDoc>('Credential', schema);
}
