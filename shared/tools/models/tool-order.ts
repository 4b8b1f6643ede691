import { Connection, Schema } from 'mongoose';

/** A bearer-catalog purchase (`POST /products/purchase`): the order a wallet placed and what it got. */
export interface ToolOrderDoc {
  _id: string;
  wallet: string;
  product_id: string;
  action_slug: string;
  instance_id: string;
  instance_metadata_json?: string;
  credits: number;
  transaction_id: string;
  created_at: Date;
}

const schema = new Schema<ToolOrderDoc>(
  {
    _id: { type: String, required: true },
    wallet: { type: String, required: true },
    product_id: { type: String, required: true },
    action_slug: { type: String, required: true },
    instance_id: { type: String, required: true },
    instance_metadata_json: String,
    credits: { type: Number, required: true },
    transaction_id: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'tool_orders', versionKey: false },
);
schema.index({ wallet: 1, created_at: -1 });

export function toolOrderModel(conn: Connection) {
  return conn.models.ToolOrder ?? conn.model<ToolOrderDoc>('ToolOrder', schema);
}
