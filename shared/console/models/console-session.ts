import { Connection, Schema } from 'mongoose';

/**
 * A console session: a person signed in with a workspace API key, or a service operator signed in
 * with an operator key. `_id` is the sha256 of the cookie's value (`csn_…`), so a copy of the
 * store signs nobody in. The key itself is never kept; its public id is, so revoking the key ends
 * the session. A workspace session carries `workspace_id` and `api_key_id`; an operator session
 * carries `operator_key_id` and neither of the others.
 */
export interface ConsoleSessionDoc {
  _id: string;
  workspace_id?: string;
  api_key_id?: string;
  operator_key_id?: string;
  /** The token every form of the session's pages carries (CSRF). */
  form_token: string;
  created_at: Date;
  expires_at: Date;
}

const schema = new Schema<ConsoleSessionDoc>(
  {
    _id: { type: String, required: true },
    workspace_id: String,
    api_key_id: String,
    operator_key_id: String,
    form_token: { type: String, required: true },
    created_at: { type: Date, required: true },
    expires_at: { type: Date, required: true },
  },
  { collection: 'console_sessions', versionKey: false },
);
// Expired sessions are refused on read; this index lets housekeeping (the credit expiry sweep) find and delete them.
schema.index({ expires_at: 1 });

export function consoleSessionModel(conn: Connection) {
  return conn.models.ConsoleSession ?? conn.model<ConsoleSessionDoc>('ConsoleSession', schema);
}
