import type { X402PaymentDoc } from './models/x402-payment';
import { SETTLE_FAILURE_CODES } from './x402/facilitator-types';

/** What the status oracle reports: pending until the money moved, then settled, or failed with its reason. */
export type OracleStatus = 'pending' | 'settled' | 'failed';

const ORACLE: Record<X402PaymentDoc['status'], OracleStatus> = {
  delivering: 'pending',
  verified: 'pending',
  submitted: 'pending',
  settled: 'settled',
  completed: 'settled',
  failed: 'failed',
};

/** A payment's id shape: `<CAIP-2 network>:<asset>:<payer>:<authorization nonce>`, lower-case. */
export const PAYMENT_ID_PATTERN = /^eip155:\d{1,12}:0x[0-9a-f]{40}:0x[0-9a-f]{40}:0x[0-9a-f]{64}$/;

/** Failure codes the chain itself tells (the authorization's state, a revert, another transaction); the rest are ours. */
const CHAIN_CODES: ReadonlySet<string> = new Set(SETTLE_FAILURE_CODES);

/** The path of a payment's status (its payer proof's `uri` is this on PUBLIC_BASE_URL). */
export function paymentStatusPath(paymentId: string): string {
  return `/api/external/payments/${paymentId}`;
}

/**
 * The status oracle's public view of a payment: what the chain shows anyone who knows the
 * authorization (amount, payer, pay-to, asset, whether and by which transaction it settled), and
 * nothing the payment bought or where: not its purpose, its resource, the wallet credited or a
 * call's result, so it never points an observer at a resource to replay the authorization on. A
 * failure is named by its code when the chain tells it; any other reason (a vendor's failure, an
 * abandoned delivery) is `not_settled`.
 */
export function paymentPublicView(rec: X402PaymentDoc) {
  const status = ORACLE[rec.status];
  const code = rec.error_code ?? 'settlement_failed';
  return {
    payment_id: rec._id,
    status,
    network: rec.network,
    asset: rec.asset,
    token: rec.token_symbol,
    amount_base_units: rec.amount_base_units,
    payer: rec.payer,
    pay_to: rec.pay_to,
    // Pending with a hash: broadcast, not yet confirmed. Failed keeps a conflicting transaction if one used the nonce.
    transaction: rec.tx_hash ?? rec.conflicting_tx_hash ?? null,
    block_number: rec.block_number ?? null,
    valid_before: rec.authorization.validBefore,
    error:
      status === 'failed'
        ? {
            code: CHAIN_CODES.has(code) ? code : 'not_settled',
            message: 'the payment was not settled: nothing was charged',
          }
        : null,
    settled_at: rec.settled_at ? new Date(rec.settled_at).toISOString() : null,
  };
}

/**
 * The payer's view (its sign-in-with-x proof for the status URL): the public view with what only
 * the payer may know: the purpose, the resource it paid for, our internal state, when we verified
 * it, and the failure's own code and message.
 */
export function paymentPayerView(rec: X402PaymentDoc) {
  const view = paymentPublicView(rec);
  return {
    ...view,
    settlement_status: rec.status,
    purpose: rec.purpose.kind,
    resource_url: rec.resource_url,
    error: view.error ? { code: rec.error_code ?? 'settlement_failed', message: rec.error_message ?? '' } : null,
    created_at: new Date(rec.created_at).toISOString(),
  };
}
