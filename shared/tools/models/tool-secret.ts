import { Connection, Schema } from 'mongoose';

/** A vendor credential, AES-256-GCM encrypted with TOOL_SECRETS_KEY; the plain value is never stored. */
export interface ToolSecretDoc {
  _id: string;
  ciphertext: string;
  created_at: Date;
  updated_at: Date;
}

const schema = new Schema<ToolSecretDoc>(
  {
    _id: { type: String, required: true },
    ciphertext: { type: String, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'tool_secrets', versionKey: false },
);

export function toolSecretModel(conn: Connection) {
  return conn.models.ToolSecret ?? conn.model<ToolSecretDoc>('ToolSecret', schema);
}
