import type { ErrorEntry } from '../platform/errors/catalog-entry';

/** Error codes of the payments area (gathered in shared/composition/error-catalog.ts). */
export const paymentsErrors: Readonly<Record<string, ErrorEntry & { area: 'payments' }>> = {
  payment_required: {
    status: 402,
    area: 'payments',
    meaning:
      'The endpoint is paid and no payment header came with the request. The body is the x402 v2 challenge, also base64 in `PAYMENT-REQUIRED`.',
    action: 'Sign one entry of `accepts` and send the identical body again with `X-PAYMENT` (or `PAYMENT-SIGNATURE`).',
  },
  malformed_payment: {
    status: 400,
    area: 'payments',
    meaning: 'The payment header is not base64 JSON of an x402 v2 payload with an EIP-3009 authorization.',
    action: 'Build the header with an x402 v2 client (for example `@x402/fetch`).',
  },
  mixed_payment_modes: {
    status: 400,
    area: 'payments',
    meaning:
      'The request carries both an x402 payment header and signed-envelope fields (`signature`, `session_nonce`); `details.envelope_fields` lists them. Nothing was verified or charged.',
    action: 'Pay one way: drop the envelope fields, or drop the payment header.',
  },
  payer_mismatch: {
    status: 400,
    area: 'payments',
    meaning: '`payer_wallet_address` is not the wallet that signed the payment.',
    action: 'Send the signer as `payer_wallet_address`, or leave it out.',
  },
  chain_not_available: {
    status: 400,
    area: 'payments',
    meaning: 'The `chain_id` is outside the active network mode or not configured on this deployment; never a 402.',
    action: "Pick a chain from the deployment's mode (84532 in testnet mode).",
  },
  token_not_available: {
    status: 400,
    area: 'payments',
    meaning: 'The token does not exist on that chain in our table.',
    action: 'Pick USDC, or a chain where EURC exists.',
  },
  payment_in_progress: {
    status: 409,
    area: 'payments',
    meaning: 'A verified x402 payment already in progress: this same payment is being settled.',
    action: 'Retry the same request shortly for its recorded result, or poll the balance.',
  },
  payment_already_used: {
    status: 409,
    area: 'payments',
    meaning:
      'The authorization nonce was already used with another signature, or this payment already paid for another request.',
    action: 'Sign a new payment for this request.',
  },
  payments_unavailable: {
    status: 503,
    area: 'payments',
    meaning: 'x402 payments are not configured on this deployment (no pay-to address or settlement chain).',
    action: 'Operators: set the X402_* variables (docs/operations.md).',
  },
  request_id_conflict: {
    status: 409,
    area: 'payments',
    meaning:
      'This `request_id` was already used with another body: for a purchase, other credits, chain, token, payer or wallet; for a webhook trigger, by your group with another prompt, callback_url, request_metadata or workflow.',
    action: 'Send the original body again to get its result, or use a new `request_id`.',
  },
};
