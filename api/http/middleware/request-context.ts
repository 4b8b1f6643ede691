import type { RequestHandler } from 'express';
import { ids } from '../../../shared/platform/ids/index';
import { withLogContext } from '../../../shared/platform/logger/index';

const MAX_REQUEST_ID = 128;

/** The caller's id made safe to echo and log: cut to 128 characters, anything outside [A-Za-z0-9._:@-] becomes `_`. */
export function safeRequestId(given: string | undefined): string | undefined {
  if (!given) return undefined;
  const cut = given
    .trim()
    .slice(0, MAX_REQUEST_ID)
    .replace(/[^A-Za-z0-9._:@-]/g, '_');
  return cut === '' ? undefined : cut;
}

declare module 'express-serve-static-core' {
  interface Locals {
    requestId: string;
  }
}

/** Echoes the caller's x-request-id (made safe) or makes one when there is none; every log line of the request carries it. */
export const requestContext: RequestHandler = (req, res, next) => {
  const requestId = safeRequestId(req.header('x-request-id')) ?? ids.request();
  res.locals.requestId = requestId;
  res.setHeader('x-request-id', requestId);
  withLogContext({ requestId }, next);
};
