import { Connection, Schema } from 'mongoose';

/**
 * A service operator's console key (`opk_…`), minted by the admin CLI. Stored as workspace API
 * keys are: `_id` is the sha256 of the key, so a copy of the store signs nobody in; `key_id` is
 * its public id (what sessions, listings and revocation name).
 */
export interface OperatorKeyDoc {
  _id: string;
  key_id: string;
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

const schema = new Schema<OperatorKeyDoc>(
  {
    _id: { type: String, required: true },
    key_id: { type: String, required: true, unique: true },
    label: { type: String, default: null },
    created_at: { type: Date, required: true },
    revoked_at: { type: Date, default: null },
  },
  { collection: 'console_operator_keys', versionKey: false },
);

export function operatorKeyModel(conn: Connection) {
  return conn.models.ConsoleOperatorKey ?? conn.model<OperatorKeyDoc>('ConsoleOperatorKey', schema);
}
