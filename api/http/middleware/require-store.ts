import type { RequestHandler } from 'express';
import type { Db } from '../../../shared/composition/store';
import { errors } from '../../../shared/platform/errors/index';

/** Refuses fast with 503 while the store is away or its indexes are missing, instead of serving without them. */
export function requireStore(db: Db): RequestHandler {
  return (_req, _res, next) => {
    if (db.isUp()) return next();
    if (db.state() === 'index_failed') {
      return next(
        errors.unavailable('store_indexes_failed', 'the data store is missing its indexes; an operator must fix them'),
      );
    }
    next(errors.unavailable('store_unavailable', 'the data store is unavailable; retry shortly'));
  };
}
