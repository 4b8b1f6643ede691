import { Connection, Schema } from 'mongoose';

/**
 * How far a scan of the ledger has got, by name (`open-holds`: the stale-hold healer). `at` is
 * the start of the first hold bucket not yet known to be settled; everything before it is.
 */
export interface LedgerWatermarkDoc {
  _id: string;
  at: Date;
  updated_at: Date;
}

const schema = new Schema<LedgerWatermarkDoc>(
  {
    _id: { type: String, required: true },
    at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'ledger_watermarks', versionKey: false },
);

export function ledgerWatermarkModel(conn: Connection) {
  return conn.models.LedgerWatermark ?? conn.model<LedgerWatermarkDoc>('LedgerWatermark', schema);
}
