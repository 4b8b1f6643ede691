import type { ErrorEntry } from '../platform/errors/catalog-entry';

/** Error codes of the identity area (gathered in shared/composition/error-catalog.ts). */
export const identityErrors: Readonly<Record<string, ErrorEntry & { area: 'identity' }>> = {
  rate_limited: {
    status: 429,
    area: 'identity',
    meaning:
      'Too many requests of this kind from your network address or wallet (identities, sessions, tokens, session starts and fetches, invokes, purchases); the body carries `rate_limit {limit, window_seconds, retry_after_seconds}` where the family has one.',
    action: 'Wait `retry_after_seconds` (also in the Retry-After header), then send the request again.',
  },
  wallet_derivation_failed: {
    status: 500,
    area: 'identity',
    meaning:
      'The server could not derive a key from the generated mnemonic; `details.reason` says why. Nothing was stored.',
    action: 'Retry; report it if it persists.',
  },
};
