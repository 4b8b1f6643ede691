import { Connection, Schema } from 'mongoose';

/** The last accepted hit for a limited key (e.g. `agentaddress:<client>`), shared by every API instance. */
export interface RateLimitDoc {
  _id: string;
  last_at: Date;
}

const schema = new Schema<RateLimitDoc>(
  { _id: { type: String, required: true }, last_at: { type: Date, required: true } },
  { collection: 'rate_limits', versionKey: false },
);

export function rateLimitModel(conn: Connection) {
  return conn.models.RateLimit ?? conn.model<RateLimitDoc>('RateLimit', schema);
}
