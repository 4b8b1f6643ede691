import { Connection, Schema } from 'mongoose';

/** The last accepted hit for a limited key (e.g. `agentaddress:<client>`), shared by every API instance. */
export interface RateLimitDoc {
  _id: string;
  last_at: Date;
  /** Counted limits (N per window): every hit is its own row in the bucket `<key>|<window slot>`. */
  bucket?: string;
}

const schema = new Schema<RateLimitDoc>(
  { _id: { type: String, required: true }, last_at: { type: Date, required: true }, bucket: String },
  { collection: 'rate_limits', versionKey: false },
);
schema.index({ bucket: 1 });

export function rateLimitModel(conn: Connection) {
  return conn.models.RateLimit ?? conn.model<RateLimitDoc>('RateLimit', schema);
}
