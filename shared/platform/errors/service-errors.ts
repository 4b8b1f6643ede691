import type { ErrorEntry } from './catalog-entry';

/** Error codes of the service area (gathered in shared/composition/error-catalog.ts). */
export const serviceErrors: Readonly<Record<string, ErrorEntry & { area: 'service' }>> = {
  store_unavailable: {
    status: 503,
    area: 'service',
    meaning:
      'The data store is unreachable. Nothing was changed; `/health` still answers. Except on a paid call with `details.charge: "unknown"`: the vendor answered and the charge may have been recorded as the store went away.',
    action:
      'Retry shortly; the service recovers by itself. With `details.charge: "unknown"`, send the same request id (`details.request_id`; over MCP the `details.idempotency_key`) again: it answers the recorded result, charged at most once.',
  },
  workflow_engine_unavailable: {
    status: 503,
    area: 'service',
    meaning:
      'Temporal is unreachable. Nothing was lost: a verified payment is recorded and the retry of the same payment starts its settlement.',
    action: 'Retry the same request shortly.',
  },
  internal_error: {
    status: 500,
    area: 'service',
    meaning: 'An unexpected failure. The log line with this `request_id` has the cause.',
    action: 'Retry; report the `request_id` if it persists.',
  },
  store_indexes_failed: {
    status: 503,
    area: 'service',
    meaning:
      'The data store is reachable but its unique indexes could not be built (a conflicting index, or duplicates under a unique key). The service refuses to work without them; `/health/details` shows `store: "index_failed"`.',
    action: 'Operators: read the error log line, fix the index or the duplicates, restart. Callers: retry later.',
  },
  health_token_invalid: {
    status: 401,
    area: 'service',
    meaning: 'A token was sent to `/health/details` but it is not `HEALTH_DETAILS_TOKEN`.',
    action: 'Send the operator token as `Authorization: Bearer <token>`, or no token for the public summary.',
  },
  metrics_token_invalid: {
    status: 401,
    area: 'service',
    meaning: '`METRICS_TOKEN` is set and `GET /metrics` came without it (or with another token).',
    action:
      'Configure the scraper with `Authorization: Bearer <METRICS_TOKEN>` (Prometheus: `authorization.credentials`).',
  },
  chain_unavailable: {
    status: 503,
    area: 'service',
    meaning:
      "The chain's RPC endpoint did not answer within its deadline while verifying a payment (`X402_RPC_TIMEOUT_MS`). Nothing was recorded or charged.",
    action: 'Retry the same payment shortly.',
  },
};
