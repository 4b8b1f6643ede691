import { Connection, Schema } from 'mongoose';

/**
 * Open holds across all accounts, so the stale-hold healer finds them without scanning every
 * ledger. Written before the hold entry and deleted after its capture or release; a row whose
 * hold never landed is harmless (the healer's release finds nothing to give back).
 */
export interface CreditHoldDoc {
  _id: string;
  account: string;
  hold_id: string;
  credits: number;
  created_at: Date;
}

const schema = new Schema<CreditHoldDoc>(
  {
    _id: { type: String, required: true },
    account: { type: String, required: true },
    hold_id: { type: String, required: true },
    credits: { type: Number, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'credit_hold_queue', versionKey: false },
);
schema.index({ created_at: 1 });

export function creditHoldModel(conn: Connection) {
  return conn.models.CreditHold ?? conn.model<CreditHoldDoc>('CreditHold', schema);
}

export function creditHoldKey(account: string, holdId: string): string {
  return `${account}|${holdId}`;
}
