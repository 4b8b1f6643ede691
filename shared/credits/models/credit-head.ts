import { Connection, Schema } from 'mongoose';
import type { Grant, OpenHold } from '../ledger';

/**
 * A hint of a wallet's latest ledger entry: its seq and live grants, copied after each append.
 * Written without a guard, so it may lag; readers then probe `<wallet>:<seq+1>` onwards, and
 * because entries are contiguous the first missing position proves they hold the latest.
 */
export interface CreditHeadDoc {
  _id: string;
  seq: number;
  live_grants: Grant[];
  open_holds?: OpenHold[];
}

const schema = new Schema<CreditHeadDoc>(
  {
    _id: { type: String, required: true },
    seq: { type: Number, required: true },
    live_grants: { type: Schema.Types.Mixed, default: [] },
    open_holds: { type: Schema.Types.Mixed, required: false },
  },
  { collection: 'credit_heads', versionKey: false },
);

export function creditHeadModel(conn: Connection) {
  return conn.models.CreditHead ?? conn.model<CreditHeadDoc>('CreditHead', schema);
}
