import type { ErrorEntry } from '../../platform/errors/catalog-entry';

/** Error codes of the x402 settlement area (gathered in shared/composition/error-catalog.ts). */
export const x402SettlementErrors: Readonly<Record<string, ErrorEntry & { area: 'x402 settlement' }>> = {
  settlement_reverted: {
    status: 402,
    area: 'x402 settlement',
    meaning: 'The settlement transaction reverted; nothing was charged.',
    action: 'Pay again; the same `request_id` may be paid again.',
  },
  settlement_pending: {
    status: 402,
    area: 'x402 settlement',
    meaning: 'Broadcast, but the receipt was not seen in time; the settlement keeps being watched.',
    action: 'Poll the balance or retry the same payment for its result.',
  },
  settlement_failed: {
    status: 402,
    area: 'x402 settlement',
    meaning:
      'The settlement failed for another reason (for example funds moved away after verification); nothing was charged.',
    action: 'Pay again; the same `request_id` may be paid again.',
  },
  authorization_canceled: {
    status: 402,
    area: 'x402 settlement',
    meaning: 'The payer canceled the authorization on chain before it settled; nothing was charged.',
    action: 'Sign a new payment.',
  },
  authorization_used_elsewhere: {
    status: 402,
    area: 'x402 settlement',
    meaning:
      "The payment's authorization nonce was used on chain by another transaction that did not pay us exactly the verified amount of the verified token (for example the payer front-ran it with a transfer to themselves). Nothing is granted; the failed payment names that transaction (`conflicting_tx_hash`).",
    action: 'Sign a new payment with a fresh nonce and do not spend it elsewhere.',
  },
  authorization_expired_unsettled: {
    status: 402,
    area: 'x402 settlement',
    meaning:
      "The authorization's `validBefore` passed before any transaction executed it (a dropped transaction, a facilitator that never broadcast, a settlement that could not start): its nonce is unused and nothing was charged.",
    action: 'Pay again with a new authorization; the same `request_id` may be paid again.',
  },
};
