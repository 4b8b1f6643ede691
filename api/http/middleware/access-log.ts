import type { RequestHandler } from 'express';
import { logger } from '../../../shared/platform/logger/index';

/** One line per request when it finishes, carrying the request id like every other line of it. */
export const accessLog: RequestHandler = (req, res, next) => {
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    logger.info('request', {
      method: req.method,
      path: req.path,
      status: res.statusCode,
      duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
    });
  });
  next();
};
