import type { ErrorEntry } from './catalog-entry';

/** Error codes of the request area (gathered in shared/composition/error-catalog.ts). */
export const requestErrors: Readonly<Record<string, ErrorEntry & { area: 'request' }>> = {
  validation_error: {
    status: 422,
    area: 'request',
    meaning:
      'The body or query failed validation. Gateway endpoints answer with `detail[{loc, msg, type, input?, ctx?}]`; a body that is not JSON has `type: "json_invalid"`.',
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
    action:
      'Check the path, the method, and the host: `/health` and `/credits/*` live on the API host, `/api/external/*` on the main host.',
  },
  method_not_allowed: {
    status: 405,
    area: 'request',
    meaning:
      'The path exists on this host but does not serve this method. The `Allow` header lists the methods it serves (GET includes HEAD); nothing else about the request was looked at.',
    action: 'Send the request with one of the methods in `Allow`.',
  },
};
