import type { ErrorEntry } from '../../platform/errors/catalog-entry';

/** Error codes of the x402 verification area (gathered in shared/composition/error-catalog.ts). */
export const x402VerificationErrors: Readonly<Record<string, ErrorEntry & { area: 'x402 verification' }>> = {
  malformed_payload: {
    status: 402,
    area: 'x402 verification',
    meaning: 'Not an x402 v2 payload, or its authorization or signature is malformed.',
    action: 'Build the payment with an x402 v2 client.',
  },
  unsupported_scheme: {
    status: 402,
    area: 'x402 verification',
    meaning: 'The scheme is not `exact`.',
    action: 'Pay with the `exact` scheme.',
  },
  unsupported_transfer_method: {
    status: 402,
    area: 'x402 verification',
    meaning: 'A Permit2 payload; only EIP-3009 `transferWithAuthorization` is accepted.',
    action: 'Use the EIP-3009 method the challenge announces.',
  },
  unsupported_network: {
    status: 402,
    area: 'x402 verification',
    meaning: 'The network is not in our table or has no settlement chain configured.',
    action: 'Pay on a network listed in `accepts`.',
  },
  network_mismatch: {
    status: 402,
    area: 'x402 verification',
    meaning: 'Paid on another network than required.',
    action: 'Pay on the required network.',
  },
  asset_not_supported: {
    status: 402,
    area: 'x402 verification',
    meaning: 'The required asset is not a token we serve, or not a contract on that chain.',
    action: 'Pay with an asset listed in `accepts`.',
  },
  asset_mismatch: {
    status: 402,
    area: 'x402 verification',
    meaning: 'Paid with another asset than required.',
    action: 'Pay with the asset in the accepted entry.',
  },
  pay_to_mismatch: {
    status: 402,
    area: 'x402 verification',
    meaning: 'The payee differs from `payTo`.',
    action: 'Authorize the transfer to `payTo`.',
  },
  amount_mismatch: {
    status: 402,
    area: 'x402 verification',
    meaning: 'The authorized value differs from `amount` (for example a payment signed for another number of credits).',
    action: 'Sign the challenge of this exact request.',
  },
  token_domain_mismatch: {
    status: 402,
    area: 'x402 verification',
    meaning: "`extra.name` / `extra.version` differ from the token's EIP-712 domain.",
    action: 'Sign with the domain the challenge announces.',
  },
  authorization_expired: {
    status: 402,
    area: 'x402 verification',
    meaning: '`validBefore` has passed, or is less than 6 s away.',
    action: 'Sign a new payment.',
  },
  authorization_not_yet_valid: {
    status: 402,
    area: 'x402 verification',
    meaning: '`validAfter` is in the future.',
    action: 'Sign with `validAfter` in the past.',
  },
  nonce_already_used: {
    status: 402,
    area: 'x402 verification',
    meaning: 'The authorization nonce was already used or canceled on chain.',
    action: 'Sign a new payment with a fresh nonce.',
  },
  invalid_signature: {
    status: 402,
    area: 'x402 verification',
    meaning: 'The signature does not recover to `from`.',
    action: "Sign the EIP-712 authorization with the payer's key.",
  },
  insufficient_balance: {
    status: 402,
    area: 'x402 verification',
    meaning: 'The payer holds less than `amount` of the token.',
    action: 'Fund the payer and pay again.',
  },
  smart_wallet_not_supported: {
    status: 402,
    area: 'x402 verification',
    meaning: 'An undeployed (ERC-6492) smart wallet signed the payment.',
    action: 'Deploy the wallet first, or pay from an externally owned account.',
  },
  simulation_failed: {
    status: 402,
    area: 'x402 verification',
    meaning: 'The transfer would revert for another reason.',
    action: 'Check the payer and token; sign a new payment.',
  },
  verification_failed: {
    status: 402,
    area: 'x402 verification',
    meaning: 'Any other refusal from the facilitator.',
    action: 'Read `message`; sign a new payment.',
  },
};
