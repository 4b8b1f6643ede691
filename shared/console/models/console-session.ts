import { Connection, Schema } from 'mongoose';

/**
 * A console session: a person signed in with a workspace API key. `_id` is the sha256 of the
 * cookie's value (`csn_…`), so a copy of the store signs nobody in. The key itself is never kept;
 * its public id is, so revoking the key ends the session.
 */
export interface ConsoleSessionDoc {
  _id: string;
  workspace_id: string;
  api_key_id: string;
  /** The token every form of the session's pages carries (CSRF). */
  form_token: string;
  created_at: Date;
  expires_at: Date;
}

const schema = new Schema<ConsoleSessionDoc>(
  {
    _id: { type: String, required: true },
    workspace_id: { type: String, required: true },
    api_key_id: { type: String, required: true },
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
