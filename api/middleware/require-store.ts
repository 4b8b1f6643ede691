import type { RequestHandler } from 'express';
import type { Db } from '../../shared/db';
import { errors } from '../../shared/errors';

/** Refuses fast with 503 while the store is away, instead of waiting on a dead socket. */
export function requireStore(db: Db): RequestHandler {
  return (_req, _res, next) =>
    next(db.isUp() ? undefined : errors.unavailable('store_unavailable', 'the data store is unavailable; retry shortly'));
}
