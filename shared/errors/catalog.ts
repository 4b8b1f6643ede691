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

export type ErrorArea =
  | 'request'
  | 'identity'
  | 'signed requests'
  | 'bearer tokens'
  | 'payments'
  | 'x402 verification'
  | 'x402 settlement'
  | 'service'
  | 'tools'
  | 'workspaces and workflows'
  | 'jobs'
  | 'webhook runs'
  | 'schedules';

export const ERROR_AREAS: readonly ErrorArea[] = [
  'request',
  'identity',
  'signed requests',
  'bearer tokens',
  'payments',
  'x402 verification',
  'x402 settlement',
  'service',
  'tools',
  'workspaces and workflows',
  'jobs',
  'webhook runs',
  'schedules',
];

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
    meaning: 'This `request_id` was already used with another body: for a purchase, other credits, chain, token, payer or wallet; for a webhook trigger, by your group with another prompt, callback_url, request_metadata or workflow.',
    action: 'Send the original body again to get its result, or use a new `request_id`.',
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
  workspace_not_found: {
    status: 404,
    area: 'workspaces and workflows',
    meaning: 'No workspace has this id.',
    action: 'Check the id (`ws_…`) printed by `workspace:create`.',
  },
  budget_not_found: {
    status: 404,
    area: 'workspaces and workflows',
    meaning: 'No budget has this id.',
    action: 'Check the id (`bud_…`) printed by `budget:create`.',
  },
  group_not_found: {
    status: 404,
    area: 'workspaces and workflows',
    meaning: 'No agent group has this id.',
    action: 'Check the id (`grp_…`) printed by `group:create`.',
  },
  approval_not_found: {
    status: 404,
    area: 'workspaces and workflows',
    meaning: 'No approval request has this id.',
    action: 'List open requests with `approval:list`.',
  },
  credential_not_set: {
    status: 409,
    area: 'workspaces and workflows',
    meaning: 'A credential approval cannot be approved before the credential has a value.',
    action: 'Run `credential:set` first, or pass `--value` to `approval:approve`.',
  },
  credentials_key_missing: {
    status: 500,
    area: 'workspaces and workflows',
    meaning: 'The deployment has no `CREDENTIALS_ENCRYPTION_KEY`, so secrets cannot be sealed or opened.',
    action: 'Set CREDENTIALS_ENCRYPTION_KEY (32 bytes, hex or base64) and restart.',
  },
  invalid_workflow: {
    status: 400,
    area: 'workspaces and workflows',
    meaning: 'The workflow definition is not valid; `details.problems[]` lists each problem with its `path` (unknown node type, dangling edge, cycle, …).',
    action: 'Fix the definition at the paths named and submit it again.',
  },
  workflow_exists: {
    status: 409,
    area: 'workspaces and workflows',
    meaning: 'A workflow with this id already exists.',
    action: 'Choose another id, or leave it out to get a generated one.',
  },
  workflow_not_found: {
    status: 404,
    area: 'workspaces and workflows',
    meaning: 'No workflow has this id (or it is not visible to the caller).',
    action: 'Check the workflow id (`wf_…`).',
  },
  invalid_version: {
    status: 400,
    area: 'workspaces and workflows',
    meaning: 'A published version must be MAJOR.MINOR.PATCH.',
    action: 'Use a version like 1.2.0.',
  },
  version_not_newer: {
    status: 409,
    area: 'workspaces and workflows',
    meaning: 'The version is already published or not newer than the latest published version.',
    action: 'Publish a higher version.',
  },
  job_not_found: {
    status: 404,
    area: 'jobs',
    meaning: 'No published job has this id (drafts are not visible).',
    action: 'List jobs with POST /api/external/jobs/list and use a `job_id` from there.',
  },
  job_not_open: {
    status: 409,
    area: 'jobs',
    meaning: 'The job is paused or closed and takes no reservations; `details.state` says which.',
    action: 'A paused job may reopen: check its status later. A closed job will not.',
  },
  job_expired: {
    status: 409,
    area: 'jobs',
    meaning: "The job's `expires_at` has passed: it takes no new reservations.",
    action: 'Pick another job.',
  },
  job_full: {
    status: 409,
    area: 'jobs',
    meaning: 'Every slot of the job is held by an active reservation or a completion; nothing was reserved.',
    action: 'Try again later: a slot returns when a reservation expires or a completion is rejected.',
  },
  wallet_limit_reached: {
    status: 409,
    area: 'jobs',
    meaning: "This wallet already has `max_completions_per_wallet` completions of the job that were not rejected.",
    action: 'Pick another job.',
  },
  reservation_active: {
    status: 409,
    area: 'jobs',
    meaning: 'This wallet already holds an active reservation of the job (one at a time); `details` names it and its expiry.',
    action: 'Complete that reservation (or let it expire) instead of reserving again.',
  },
  no_active_reservation: {
    status: 409,
    area: 'jobs',
    meaning: 'Completing needs a reservation of the job by this wallet, and there is none.',
    action: 'Reserve the job first, then complete it within the reservation window.',
  },
  reservation_mismatch: {
    status: 409,
    area: 'jobs',
    meaning: "`reservation_id` is not one of this wallet's reservations of this job; nothing was recorded.",
    action: 'Send the `reservation_id` the reserve call answered (or leave it out to use the active one).',
  },
  reservation_expired: {
    status: 409,
    area: 'jobs',
    meaning: 'The reservation ended before the completion arrived (its window passed); its slot went back to the pool and nothing was recorded.',
    action: 'Reserve the job again and complete within `reservation_window_seconds`.',
  },
  already_completed: {
    status: 409,
    area: 'jobs',
    meaning: 'This reservation was already completed; `details.completion_id` names the completion.',
    action: 'Follow that completion with POST /api/external/jobs/{jobId}/status.',
  },
  run_not_found: {
    status: 404,
    area: 'webhook runs',
    meaning: 'No run with this id belongs to your agent group (another group\'s run is not found either).',
    action: 'Use the run_id (or status_url) the trigger answered for this group.',
  },
  workflow_not_on_budget: {
    status: 409,
    area: 'webhook runs',
    meaning: 'Your group\'s budget does not list this workflow. `data.workflow_request_id` is the approval request opened for it; `data` also lists anything else missing.',
    action: 'Ask an operator to run `approval:approve --id <workflow_request_id>`, then trigger again.',
  },
  missing_credentials: {
    status: 409,
    area: 'webhook runs',
    meaning: 'The workflow needs workspace credentials that are not set: `data.missing_credentials[]` names them and `data.credential_request_ids` the approval requests opened.',
    action: 'Ask an operator to set them (`credential:set` or `approval:approve --value`), then trigger again.',
  },
  setup_required: {
    status: 409,
    area: 'webhook runs',
    meaning: 'The workflow needs something this deployment has not set up (a model endpoint): `data.missing_setup[]` says what, with its approval request.',
    action: 'Ask the operator to configure it (MODEL_API_URL) and approve the request, then trigger again.',
  },
  run_already_terminal: {
    status: 409,
    area: 'webhook runs',
    meaning: 'The run already ended (completed, failed or setup_required) and cannot be cancelled.',
    action: 'Read the run with GET /api/agent-webhooks/runs/{runId}.',
  },
  invalid_callback_url: {
    status: 400,
    area: 'webhook runs',
    meaning: 'callback_url names a loopback, private, link-local or other non-public address. Host names are checked again at every delivery.',
    action: 'Give a public https URL.',
  },
  budget_bearer_invalid: {
    status: 401,
    area: 'schedules',
    meaning: 'The schedule endpoints need `Authorization: Bearer <base64("<api_key>:<budget_key>")>` with a live workspace API key and a key of one of that workspace\'s budgets; it is missing, malformed or unknown.',
    action: 'Build the bearer as docs/schedules.md shows, from keys an operator issued (`apikey:create`, `budget:create`).',
  },
  invalid_request_body: {
    status: 400,
    area: 'schedules',
    meaning: 'The schedule id in the path or the body (or query) is not valid; `details.issues` lists the fields as `{loc, msg, type}`.',
    action: 'Fix the fields named and send again.',
  },
  schedule_not_found: {
    status: 404,
    area: 'schedules',
    meaning: 'No schedule with this id belongs to the budget of your bearer.',
    action: 'Check the id; list what is due with `GET /api/external/workflow-schedules/due`.',
  },
  occurrence_not_due: {
    status: 409,
    area: 'schedules',
    meaning: 'Nothing to claim: the schedule\'s next occurrence (`details.next_due_at`) is in the future, the schedule is paused, or (no `schedule_id` given) no occurrence of the budget is due and unclaimed.',
    action: 'Claim again at or after `next_due_at`; poll `GET /due`.',
  },
  occurrence_claimed: {
    status: 409,
    area: 'schedules',
    meaning: 'The due occurrence is already claimed by another holder whose lease runs until `details.lease_expires_at`.',
    action: 'Claim another occurrence, or retry after the lease expires.',
  },
  due_at_mismatch: {
    status: 409,
    area: 'schedules',
    meaning: '`due_at` is not the occurrence this claim token holds (`details.claimed_due_at`).',
    action: 'Send the `due_at` the claim answered, unchanged.',
  },
  claim_required: {
    status: 409,
    area: 'schedules',
    meaning: 'Advance without a claim: the token holds no claim on this schedule (never claimed here, or released).',
    action: 'Claim the occurrence first, run it, then advance with the claim\'s token and `due_at`.',
  },
  claim_expired: {
    status: 409,
    area: 'schedules',
    meaning: 'The claim\'s lease ran out (`details.lease_expires_at`); the occurrence went back to the due queue and nothing was changed.',
    action: 'Claim again; ask for a longer `lease_seconds` if runs take longer than the lease.',
  },
  claim_mismatch: {
    status: 409,
    area: 'schedules',
    meaning: 'The token is not the claim that holds this occurrence now: another holder claimed it, or this claim already advanced it. Nothing was changed.',
    action: 'Drop this occurrence; list what is due and claim afresh.',
  },
  job_workflow_token_invalid: {
    status: 401,
    area: 'jobs',
    meaning: 'The X-Job-Workflow-Token is not one this service issued for this job, was altered, or its reservation window has passed.',
    action: 'Use the token the reserve call answered for this job, or sign the request with the envelope instead.',
  },
  not_a_workflow_job: {
    status: 409,
    area: 'jobs',
    meaning: 'Job workflows belong to `workflow_creation` jobs; this job is of another kind.',
    action: 'Pick a workflow_creation job from POST /api/external/jobs/list.',
  },
  reservation_required: {
    status: 403,
    area: 'jobs',
    meaning: 'Only the wallet holding the active reservation of this workflow_creation job may create, edit or publish its workflows (with a token: the reservation the token was issued with). Nothing was changed.',
    action: 'Reserve the job (POST /api/external/jobs/{jobId}/reserve) and act within the reservation window.',
  },
  session_not_found: {
    status: 404,
    area: 'workspaces and workflows',
    meaning: 'No workflow session of this wallet matches (another wallet\'s session reads as missing too).',
    action: 'Start one with POST /api/external/workflows/{workflowId}/start, or list yours with POST /api/external/workflows/active.',
  },
  session_ambiguous: {
    status: 409,
    area: 'workspaces and workflows',
    meaning: 'The wallet has several active sessions of this workflow (one per instance_id) and the call did not say which; `details.workflow_session_ids` lists them.',
    action: 'Send `workflow_session_id` (end) or `instance_id` / `workflow_session_id` (fetch).',
  },
  session_unavailable: {
    status: 503,
    area: 'workspaces and workflows',
    meaning: 'The session could not be started or reached on Temporal just now; nothing was charged.',
    action: 'Retry shortly: start again resumes or starts the session.',
  },
};
