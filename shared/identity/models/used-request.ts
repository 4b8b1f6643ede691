import { Connection, Schema } from 'mongoose';

/** A signed request id already accepted for a wallet. `_id` = `<wallet>:<request_id>` (unique). */
export interface UsedRequestDoc {
  _id: string;
  created_at: Date;
  /** The expiry of the session it was signed under: kept at least until then (housekeeping prunes by it). */
  expires_at?: Date;
}

const schema = new Schema<UsedRequestDoc>(
  { _id: { type: String, required: true }, created_at: { type: Date, required: true }, expires_at: Date },
  { collection: 'used_request_ids', versionKey: false },
);
schema.index({ created_at: 1 });
schema.index({ expires_at: 1 });

export function usedRequestModel(conn: Connection) {
  return conn.models.UsedRequest ?? conn.model<UsedRequestDoc>('UsedRequest', schema);
}
