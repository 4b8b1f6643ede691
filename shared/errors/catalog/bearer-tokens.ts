import type { ErrorEntry } from '../catalog';

/** Error codes of the bearer tokens area (see ../catalog.ts). */
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
};
