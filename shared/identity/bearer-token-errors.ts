import type { ErrorEntry } from '../platform/errors/catalog-entry';

/** Error codes of the bearer tokens area (gathered in shared/composition/error-catalog.ts). */
export const bearerTokensErrors: Readonly<Record<string, ErrorEntry & { area: 'bearer tokens' }>> = {
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
  token_not_found: {
    status: 404,
    area: 'bearer tokens',
    meaning:
      "The signing wallet has no access token with this token id (another wallet's tokens are answered the same way).",
    action: 'List your tokens with the signed `access_token_list` action and use one of their `token_id`s.',
  },
};
