import type { ErrorEntry } from '../catalog';

/** Error codes of the identity area (see ../catalog.ts). */
export const identityErrors: Readonly<Record<string, ErrorEntry & { area: 'identity' }>> = {
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
};
