import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { withLogContext } from '../../shared/logger';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

declare module 'express-serve-static-core' {
  interface Locals {
    requestId: string;
  }
}

/** Echoes a sane x-request-id or makes one; every log line of the request carries it. */
export const requestContext: RequestHandler = (req, res, next) => {
  const given = req.header('x-request-id');
  const requestId = given && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
  res.locals.requestId = requestId;
  res.setHeader('x-request-id', requestId);
  withLogContext({ requestId }, next);
};
