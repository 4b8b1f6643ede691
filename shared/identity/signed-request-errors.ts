import type { ErrorEntry } from '../platform/errors/catalog-entry';

/** Error codes of the signed requests area (gathered in shared/composition/error-catalog.ts). */
export const signedRequestsErrors: Readonly<Record<string, ErrorEntry & { area: 'signed requests' }>> = {
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
    meaning:
      'The signature does not recover to `wallet_address` over the message rebuilt from this request (see docs/signing.md).',
    action: 'Check the action, path, payload canonicalisation and the signing key against the published test vectors.',
  },
  request_replayed: {
    status: 401,
    area: 'signed requests',
    meaning:
      'This wallet already sent this `request_id`; the earlier request had its effect, this one has none. Credit tool invokes are the exception: the same `request_id` answers the recorded outcome of its call (charged at most once), or 409 while that call runs.',
    action: 'Use a new `request_id` for every new request.',
  },
  unsignable_request: {
    status: 400,
    area: 'signed requests',
    meaning:
      'The payload cannot be canonicalised (for example a number JSON cannot represent exactly), so no signature over it can be checked.',
    action: 'Send plain JSON values: strings, finite numbers, booleans, null, arrays and objects.',
  },
};
