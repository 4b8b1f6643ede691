import { Connection, Schema } from 'mongoose';

export interface SystemPingDoc {
  _id: string;
  recorded_at: Date;
  worker: string;
}

const schema = new Schema<SystemPingDoc>(
  { _id: { type: String, required: true }, recorded_at: { type: Date, required: true }, worker: String },
  { collection: 'system_pings', versionKey: false },
);

export function systemPingModel(conn: Connection) {
  return conn.models.SystemPing ?? conn.model<SystemPingDoc>('SystemPing', schema);
}
