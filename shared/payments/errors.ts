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
      'The request carries two ways to pay: an x402 payment header and signed-envelope fields (`signature`, `session_nonce`, listed in `details.envelope_fields`), or a new x402 payment and a sign-in-with-x proof (which pays from credits, or proves the payer of a payment already made). Nothing was verified or charged.',
    action:
      'Pay one way: drop the envelope fields or the proof, or the payment header. A proof goes with a payment only to fetch what that settled payment bought.',
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
  delivery_abandoned: {
    status: 402,
    area: 'payments',
    meaning:
      'A paid tool call was interrupted before it answered (the service restarted mid-call) and was abandoned: its authorization was never settled, nothing was charged.',
    action: 'Pay again with a new authorization (the 402 carries the challenge).',
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
      "This `request_id` was already used with another body: for a purchase, other credits, chain, token, payer or wallet; for a webhook trigger, by your group with another prompt, callback_url, request_metadata or workflow; for a paid tool call (a signed invoke's `request_id`, a bearer purchase's `Idempotency-Key`, an MCP idempotency key), another tool or other parameters.",
    action: 'Send the original body again to get its result, or use a new `request_id`.',
  },
  invalid_payment_identifier: {
    status: 400,
    area: 'payments',
    meaning:
      'The payment payload\'s `extensions["payment-identifier"]` is malformed: `info.required` must be a boolean and `info.id` 16 to 128 characters of letters, digits, `-` and `_`.',
    action:
      'Build the extension with `appendPaymentIdentifierToExtensions` from `@x402/extensions/payment-identifier`.',
  },
  payment_identifier_conflict: {
    status: 409,
    area: 'payments',
    meaning:
      'This payer already used the payment identifier for another request (another purchase body, or another tool, action or parameters). Nothing was verified or charged.',
    action: 'Send the original request again to get its recorded result, or use a new payment identifier.',
  },
  siwx_malformed: {
    status: 400,
    area: 'payments',
    meaning:
      'The `SIGN-IN-WITH-X` header is not base64 JSON of a sign-in-with-x payload (CAIP-122 fields and a signature).',
    action:
      'Build it with `createSIWxPayload` and `encodeSIWxHeader` from `@x402/extensions/sign-in-with-x`, from the 402\'s `extensions["sign-in-with-x"]`.',
  },
  siwx_invalid: {
    status: 401,
    area: 'payments',
    meaning:
      "The sign-in-with-x proof was refused: `details.reason` says why (the extension's codes: domain or URI not ours or not this resource, issued more than 5 minutes ago or in the future, expiry past or more than 5 minutes after issue, unsupported chain, bad signature; `siwx_not_payer`: a payer proof signed by another wallet than the payment's payer). Nothing was charged or shown.",
    action:
      'Sign a fresh message for this resource, on a supported chain (a 402 challenge, or the `extensions["sign-in-with-x"]` of a status answer, carries one); a payer proof with the key that signed the payment.',
  },
  siwx_nonce_used: {
    status: 401,
    area: 'payments',
    meaning:
      'This sign-in-with-x message (its nonce, for this wallet) was already used: each proof pays for one call, or proves the payer once.',
    action: 'Sign a new message with a new nonce (a new 402 challenge carries one).',
  },
  payment_not_found: {
    status: 404,
    area: 'payments',
    meaning: 'No x402 payment has this id (`<network>:<asset>:<payer>:<authorization nonce>`, lower-case).',
    action:
      'Use the `payment_id` an answer gave you (202 `data.payment_id`, the `x402` block), or the id built from your own authorization.',
  },
  invalid_discovery_query: {
    status: 400,
    area: 'payments',
    meaning:
      '`GET /discovery/resources` got an unknown `type`, a `limit` outside 1..100, or a negative `offset`; `details.fields` names them.',
    action: 'Send `type=http`, `limit` from 1 to 100, `offset` from 0.',
  },
};
