import type { X402PaymentDoc } from './models/x402-payment';

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

/**
 * The status oracle's view of a payment. It tells what the chain would tell anyone who knows the
 * authorization (amount, payer, pay-to, transaction) and nothing the payment bought: not the wallet
 * credited, not a tool call's result.
 */
export function paymentStatusView(rec: X402PaymentDoc) {
  const status = ORACLE[rec.status];
  return {
    payment_id: rec._id,
    status,
    settlement_status: rec.status,
    purpose: rec.purpose.kind,
    network: rec.network,
    asset: rec.asset,
    token: rec.token_symbol,
    amount_base_units: rec.amount_base_units,
    payer: rec.payer,
    pay_to: rec.pay_to,
    resource_url: rec.resource_url,
    // Pending with a hash: broadcast, not yet confirmed. Failed keeps a conflicting transaction if one used the nonce.
    transaction: rec.tx_hash ?? rec.conflicting_tx_hash ?? null,
    block_number: rec.block_number ?? null,
    valid_before: rec.authorization.validBefore,
    error:
      status === 'failed' ? { code: rec.error_code ?? 'settlement_failed', message: rec.error_message ?? '' } : null,
    created_at: new Date(rec.created_at).toISOString(),
    settled_at: rec.settled_at ? new Date(rec.settled_at).toISOString() : null,
  };
}
