/**
 * Every error code the service answers with, what it means and what the caller should do.
 * docs/errors.md and GET /docs/errors are rendered from this table; a test keeps the table,
 * the doc and the codes thrown in the source in step.
 */
export interface ErrorEntry {
  status: number;
  area: ErrorArea;
  meaning: string;
  action: string;
}

export type ErrorArea = 'request' | 'identity' | 'signed requests' | 'bearer tokens' | 'payments' | 'x402 verification' | 'x402 settlement' | 'service' | 'tools';

export const ERROR_AREAS: readonly ErrorArea[] = ['request', 'identity', 'signed requests', 'bearer tokens', 'payments', 'x402 verification', 'x402 settlement', 'service', 'tools'];

export const ERROR_CATALOG: Readonly<Record<string, ErrorEntry>> = {
  validation_error: {
    status: 422,
    area: 'request',
    meaning: 'The body or query failed validation. Gateway endpoints answer with `detail[{loc, msg, type, input?, ctx?}]`; a body that is not JSON has `type: "json_invalid"`.',
    action: 'Fix the fields named in `loc` and send again.',
  },
  invalid_request: {
    status: 400,
    area: 'request',
    meaning: 'The same validation failure on endpoints whose family answers 400 (tool invoke, webhooks).',
    action: 'Fix the request as `message` says and send again.',
  },
  payload_too_large: {
    status: 413,
    area: 'request',
    meaning: 'The body is larger than 256 KiB.',
    action: 'Send a smaller body.',
  },
  unsupported_encoding: {
    status: 415,
    area: 'request',
    meaning: 'The body uses a content encoding or charset the server does not read.',
    action: 'Send UTF-8 JSON without a content encoding.',
  },
  route_not_found: {
    status: 404,
    area: 'request',
    meaning: 'No endpoint answers this method and path on this host.',
    action: 'Check the path, the method, and the host: `/health` and `/credits/*` live on the API host, `/api/external/*` on the main host.',
  },
  rate_limited: {
    status: 429,
    area: 'identity',
    meaning: 'Too many agent addresses created from your network address; the body carries `rate_limit {limit, window_seconds, retry_after_seconds}`.',
    action: 'Wait `retry_after_seconds` (also in the Retry-After header), then create one again.',
  },
  wallet_derivation_failed: {
    status: 500,
    area: 'identity',
    meaning: 'The server could not derive a key from the generated mnemonic; `details.reason` says why. Nothing was stored.',
    action: 'Retry; report it if it persists.',
  },
  session_unknown: {
    status: 401,
    area: 'signed requests',
    meaning: 'The `session_nonce` was never issued by this service.',
    action: 'Get a fresh nonce from `POST /api/external/auth/session` and sign again.',
  },
  session_expired: {
    status: 401,
    area: 'signed requests',
    meaning: 'The `session_nonce` is past its `expires_at` (nonces live one hour).',
    action: 'Get a fresh nonce and sign again.',
  },
  session_wallet_mismatch: {
    status: 401,
    area: 'signed requests',
    meaning: 'The nonce was issued to another wallet than `wallet_address`.',
    action: 'Ask for a nonce for the wallet that signs.',
  },
  signature_invalid: {
    status: 401,
    area: 'signed requests',
    meaning: 'The signature does not recover to `wallet_address` over the message rebuilt from this request (see docs/signing.md).',
    action: 'Check the action, path, payload canonicalisation and the signing key against the published test vectors.',
  },
  request_replayed: {
    status: 401,
    area: 'signed requests',
    meaning: 'This wallet already sent this `request_id`; the earlier request had its effect, this one has none.',
    action: 'Use a new `request_id` for every new request.',
  },
  unsignable_request: {
    status: 400,
    area: 'signed requests',
    meaning: 'The payload cannot be canonicalised (for example a number JSON cannot represent exactly), so no signature over it can be checked.',
    action: 'Send plain JSON values: strings, finite numbers, booleans, null, arrays and objects.',
  },
  missing_bearer: {
    status: 401,
    area: 'bearer tokens',
    meaning: 'The API host endpoint needs `Authorization: Bearer <token>` and none was sent.',
    action: 'Mint a token with the signed `access_token` action (docs/decisions.md) and send it.',
  },
  invalid_bearer: {
    status: 401,
    area: 'bearer tokens',
    meaning: 'The bearer token is malformed, unknown or revoked.',
    action: 'Mint a new token.',
  },
  bearer_expired: {
    status: 401,
    area: 'bearer tokens',
    meaning: 'The bearer token is past its expiry.',
    action: 'Mint a new token.',
  },
  payment_required: {
    status: 402,
    area: 'payments',
    meaning: 'The endpoint is paid and no payment header came with the request. The body is the x402 v2 challenge, also base64 in `PAYMENT-REQUIRED`.',
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
    meaning: 'The request carries both an x402 payment header and signed-envelope fields (`signature`, `session_nonce`); `details.envelope_fields` lists them. Nothing was verified or charged.',
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
    action: 'Pick a chain from the deployment\'s mode (84532 in testnet mode).',
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
    meaning: 'The authorization nonce was already used with another signature, or this payment already paid for another request.',
    action: 'Sign a new payment for this request.',
  },
  payments_unavailable: {
    status: 503,
    area: 'payments',
    meaning: 'x402 payments are not configured on this deployment (no pay-to address or settlement chain).',
    action: 'Operators: set the X402_* variables (docs/operations.md).',
  },
  malformed_payload: {
    status: 402,
    area: 'x402 verification',
    meaning: 'Not an x402 v2 payload, or its authorization or signature is malformed.',
    action: 'Build the payment with an x402 v2 client.',
  },
  unsupported_scheme: { status: 402, area: 'x402 verification', meaning: 'The scheme is not `exact`.', action: 'Pay with the `exact` scheme.' },
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
  network_mismatch: { status: 402, area: 'x402 verification', meaning: 'Paid on another network than required.', action: 'Pay on the required network.' },
  asset_not_supported: {
    status: 402,
    area: 'x402 verification',
    meaning: 'The required asset is not a token we serve, or not a contract on that chain.',
    action: 'Pay with an asset listed in `accepts`.',
  },
  asset_mismatch: { status: 402, area: 'x402 verification', meaning: 'Paid with another asset than required.', action: 'Pay with the asset in the accepted entry.' },
  pay_to_mismatch: { status: 402, area: 'x402 verification', meaning: 'The payee differs from `payTo`.', action: 'Authorize the transfer to `payTo`.' },
  amount_mismatch: {
    status: 402,
    area: 'x402 verification',
    meaning: 'The authorized value differs from `amount` (for example a payment signed for another number of credits).',
    action: 'Sign the challenge of this exact request.',
  },
  token_domain_mismatch: {
    status: 402,
    area: 'x402 verification',
    meaning: '`extra.name` / `extra.version` differ from the token\'s EIP-712 domain.',
    action: 'Sign with the domain the challenge announces.',
  },
  authorization_expired: {
    status: 402,
    area: 'x402 verification',
    meaning: '`validBefore` has passed, or is less than 6 s away.',
    action: 'Sign a new payment.',
  },
  authorization_not_yet_valid: { status: 402, area: 'x402 verification', meaning: '`validAfter` is in the future.', action: 'Sign with `validAfter` in the past.' },
  nonce_already_used: {
    status: 402,
    area: 'x402 verification',
    meaning: 'The authorization nonce was already used or canceled on chain.',
    action: 'Sign a new payment with a fresh nonce.',
  },
  invalid_signature: { status: 402, area: 'x402 verification', meaning: 'The signature does not recover to `from`.', action: 'Sign the EIP-712 authorization with the payer\'s key.' },
  insufficient_balance: { status: 402, area: 'x402 verification', meaning: 'The payer holds less than `amount` of the token.', action: 'Fund the payer and pay again.' },
  smart_wallet_not_supported: {
    status: 402,
    area: 'x402 verification',
    meaning: 'An undeployed (ERC-6492) smart wallet signed the payment.',
    action: 'Deploy the wallet first, or pay from an externally owned account.',
  },
  simulation_failed: { status: 402, area: 'x402 verification', meaning: 'The transfer would revert for another reason.', action: 'Check the payer and token; sign a new payment.' },
  verification_failed: { status: 402, area: 'x402 verification', meaning: 'Any other refusal from the facilitator.', action: 'Read `message`; sign a new payment.' },
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
    meaning: 'The settlement failed for another reason (for example funds moved away after verification); nothing was charged.',
    action: 'Pay again; the same `request_id` may be paid again.',
  },
  authorization_canceled: {
    status: 402,
    area: 'x402 settlement',
    meaning: 'The payer canceled the authorization on chain before it settled; nothing was charged.',
    action: 'Sign a new payment.',
  },
  store_unavailable: {
    status: 503,
    area: 'service',
    meaning: 'The data store is unreachable. Nothing was changed; `/health` still answers.',
    action: 'Retry shortly; the service recovers by itself.',
  },
  workflow_engine_unavailable: {
    status: 503,
    area: 'service',
    meaning: 'Temporal is unreachable. Nothing was lost: a verified payment is recorded and the retry of the same payment starts its settlement.',
    action: 'Retry the same request shortly.',
  },
  internal_error: {
    status: 500,
    area: 'service',
    meaning: 'An unexpected failure. The log line with this `request_id` has the cause.',
    action: 'Retry; report the `request_id` if it persists.',
  },
  // money-edges (issue 7)
  store_indexes_failed: {
    status: 503,
    area: 'service',
    meaning: 'The data store is reachable but its unique indexes could not be built (a conflicting index, or duplicates under a unique key). The service refuses to work without them; `/health/details` shows `store: "index_failed"`.',
    action: 'Operators: read the error log line, fix the index or the duplicates, restart. Callers: retry later.',
  },
  health_token_invalid: {
    status: 401,
    area: 'service',
    meaning: 'A token was sent to `/health/details` but it is not `HEALTH_DETAILS_TOKEN`.',
    action: 'Send the operator token as `Authorization: Bearer <token>`, or no token for the public summary.',
  },
  request_id_conflict: {
    status: 409,
    area: 'payments',
    meaning: 'This `request_id` was already used for a purchase with another body (credits, chain, token, payer or wallet).',
    action: 'Use a new `request_id` for a different purchase, or resend the original body.',
  },
  authorization_used_elsewhere: {
    status: 402,
    area: 'x402 settlement',
    meaning: 'The payment\'s authorization nonce was used on chain by another transaction that did not pay us exactly the verified amount of the verified token (for example the payer front-ran it with a transfer to themselves). Nothing is granted; the failed payment names that transaction (`conflicting_tx_hash`).',
    action: 'Sign a new payment with a fresh nonce and do not spend it elsewhere.',
  },
  authorization_expired_unsettled: {
    status: 402,
    area: 'x402 settlement',
    meaning: 'The authorization\'s `validBefore` passed before any transaction executed it (a dropped transaction, a facilitator that never broadcast, a settlement that could not start): its nonce is unused and nothing was charged.',
    action: 'Pay again with a new authorization; the same `request_id` may be paid again.',
  },
  chain_unavailable: {
    status: 503,
    area: 'service',
    meaning: 'The chain\'s RPC endpoint did not answer within its deadline while verifying a payment (`X402_RPC_TIMEOUT_MS`). Nothing was recorded or charged.',
    action: 'Retry the same payment shortly.',
  },
  product_not_found: {
    status: 404,
    area: 'tools',
    meaning: 'No active product with this id or slug (private and inactive products are not found either).',
    action: 'List tools with `GET /api/external/tools` and use an id or slug from there.',
  },
  action_not_found: {
    status: 404,
    area: 'tools',
    meaning: 'The product has no action with this slug.',
    action: 'Use one of the action slugs the tool list shows for this product.',
  },
  action_ambiguous: {
    status: 409,
    area: 'tools',
    meaning: 'The product has several actions and the request did not say which (`details.actions` lists them), or the slug matches more than one.',
    action: 'Invoke by slug: `/tools/{productSlug}/actions/{actionSlug}/invoke`, or name the action in `parameters.action`.',
  },
  action_mismatch: {
    status: 400,
    area: 'tools',
    meaning: 'The body names another action than the path (`parameters.action` or `action`), or the signed path is not a variant of this action.',
    action: 'Send the body to the path of the action it is for.',
  },
  invalid_parameters: {
    status: 400,
    area: 'tools',
    meaning: 'The parameters do not match the action\'s JSON Schema (`details.errors` says where). Checked before anything is held or paid.',
    action: 'Fix the parameters against `parameters_schema` from the tool list.',
  },
  insufficient_credits: {
    status: 402,
    area: 'tools',
    meaning: 'The wallet\'s balance (`details.balance`) is below the action\'s price (`details.credits_required`). Nothing was charged.',
    action: 'Buy credits (`POST /api/external/credits/purchase`) or pay this call directly with x402.',
  },
  budget_exceeded: {
    status: 402,
    area: 'tools',
    meaning: 'The call is within the balance but over the wallet\'s budget (per call or per day; `details` has the limit, spent today and the price). Nothing was held.',
    action: 'Wait for the next UTC day, raise the budget (`POST /api/external/tools/budget`), or ask an operator.',
  },
  vendor_error: {
    status: 502,
    area: 'tools',
    meaning: 'The vendor answered with an error or an unusable body; `details.vendor_status` and `details.vendor_body` carry what it said (never its secrets). Nothing was charged.',
    action: 'Check the parameters against the vendor\'s message and retry with a new `request_id`.',
  },
  vendor_timeout: {
    status: 504,
    area: 'tools',
    meaning: 'The vendor did not answer within the action\'s timeout, or the call was cancelled. Nothing was charged.',
    action: 'Retry later with a new `request_id`.',
  },
  invocation_in_progress: {
    status: 409,
    area: 'tools',
    meaning: 'A call with this `request_id` is still running for this account.',
    action: 'Wait for it; a retry afterwards answers its recorded result.',
  },
  signed_request_required: {
    status: 401,
    area: 'tools',
    meaning: 'The action is paid with credits only and the request carried neither a signed envelope nor a payment.',
    action: 'Send the signed request envelope with `parameters` (docs/signing.md, path form).',
  },
  direct_payment_not_available: {
    status: 404,
    area: 'tools',
    meaning: 'This action has no x402 price: it can only be paid with credits (a signed request).',
    action: 'Send a signed credit request (envelope + `parameters`).',
  },
  invalid_instance_metadata: {
    status: 400,
    area: 'tools',
    meaning: '`x-instance-metadata` is not a JSON object encoded as a string.',
    action: 'Send JSON text, for example `{"agent":"my-agent"}`, or leave the header out.',
  },
  invalid_instance_id: {
    status: 400,
    area: 'tools',
    meaning: '`x-instance-id` has characters or a length we do not keep.',
    action: 'Echo the `instance_id` the catalog gave you, or send 1-128 of A-Z a-z 0-9 _ . : -.',
  },
  hold_not_found: {
    status: 404,
    area: 'tools',
    meaning: 'No hold with this id on this ledger account (internal: capture of a hold never made).',
    action: 'Report it with the `request_id`; nothing was charged.',
  },
  hold_not_open: {
    status: 409,
    area: 'tools',
    meaning: 'The hold was already released, so it cannot be captured (internal: a late capture after the stale-hold healer gave the credits back).',
    action: 'Nothing was charged; retry the call with a new `request_id`.',
  },
  invalid_catalog_entry: {
    status: 400,
    area: 'tools',
    meaning: 'A product or action definition is invalid (operator CLI): bad slug, price, URL or JSON Schema.',
    action: 'Fix the definition as `message` says.',
  },
  catalog_conflict: {
    status: 409,
    area: 'tools',
    meaning: 'A product or action with this slug already exists (operator CLI).',
    action: 'Pick another slug or update the existing one.',
  },
};
