import type { ErrorEntry } from '../platform/errors/catalog-entry';

/**
 * Error codes of the embeddable widget (gathered in shared/composition/error-catalog.ts,
 * docs/embed.md). Its pages answer these as HTML.
 */
export const embedErrors: Readonly<Record<string, ErrorEntry & { area: 'embed' }>> = {
  invalid_embed_id: {
    status: 400,
    area: 'embed',
    meaning: 'The widget path carries a malformed id (workflow `wf_…`, product 24 hex, bundle `bnd_…`).',
    action: 'Copy the id from the embed snippet the operator gave you.',
  },
  embed_not_found: {
    status: 404,
    area: 'embed',
    meaning: 'No bundle has this id, or the workflow or product is missing, unpublished or not exposed by the bundle.',
    action: 'Ask the operator to publish it and add it to a bundle (`bundle:add`).',
  },
  origin_not_allowed: {
    status: 403,
    area: 'embed',
    meaning: "The page embedding the widget is not among the bundle's allowed origins, so no sign-in is issued for it.",
    action: 'Ask the operator to allow the origin (`bundle:add --bundle bnd_… --origin https://…`).',
  },
  embed_sign_in_invalid: {
    status: 401,
    area: 'embed',
    meaning:
      'The sign-in message or its signature was refused: unknown, expired or used nonce, another wallet, site or host page, or a signature that does not verify.',
    action: 'Start the sign-in again (a new nonce) and sign the message as given.',
  },
  embed_sign_in_required: {
    status: 401,
    area: 'embed',
    meaning: 'The widget call has no valid widget token for this bundle.',
    action: 'Sign in with the wallet or an access token, then retry.',
  },
  embed_token_expired: {
    status: 401,
    area: 'embed',
    meaning: 'The widget token has expired (they live 30 minutes).',
    action: 'Sign in again.',
  },
};
