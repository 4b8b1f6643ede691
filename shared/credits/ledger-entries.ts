import type { CreditTransaction } from './ledger-results';
import type { CreditTransactionDoc } from './models/credit-transaction';

/** What a public read of entries leaves out: the ledger's own bookkeeping. */
export const PUBLIC_FIELDS = { live_grants: 0, grant: 0, seq: 0, open_holds: 0, hold_bucket: 0, outcome: 0 } as const;

export function holdOp(account: string, holdId: string): string {
  return `hold:${account}:${holdId}`;
}

/** A later worker attempt taking over an open hold: one op per attempt, so one taker each. */
export function takeoverOp(account: string, holdId: string, attempt: number): string {
  return `takeover:${account}:${holdId}:${attempt}`;
}

/** Capture and release of a hold share this op id: the unique index lets exactly one of them land. */
export function settleOp(account: string, holdId: string): string {
  return `purchase:${account}:${holdId}`;
}

/** The hold a settlement's op id (a purchase's transaction id) settles on `account`: settleOp's inverse, or undefined. */
export function settledHoldId(account: string, transactionId: string): string | undefined {
  const prefix = settleOp(account, '');
  return transactionId.startsWith(prefix) && transactionId.length > prefix.length
    ? transactionId.slice(prefix.length)
    : undefined;
}

/** An entry as clients see it: its op id is its `_id`, the bookkeeping fields left out. */
export function toPublic(doc: CreditTransactionDoc): CreditTransaction {
  const { live_grants: _l, grant: _g, seq: _s, open_holds: _h, hold_bucket: _b, outcome: _o, op_id, ...rest } = doc;
  return { ...rest, _id: op_id };
}

/** The order a purchase entry was charged for (a bearer purchase records it in `details.meta.order_id`). */
export function orderIdOf(details: string | undefined): string | undefined {
  if (!details?.startsWith('{')) return undefined;
  try {
    const id = (JSON.parse(details) as { meta?: { order_id?: unknown } }).meta?.order_id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
