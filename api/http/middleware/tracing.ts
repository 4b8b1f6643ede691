import type { RequestHandler } from 'express';
import { startServerSpan } from '../../../shared/platform/tracing/index';
import { routeOf } from './metrics';

/**
 * Each request a server span, the root of its trace: the workflow it starts, the workflow's
 * activities and their outbound calls are its descendants. Mounted only when tracing is on.
 */
export const traceRequests: RequestHandler = (req, res, next) => {
  const span = startServerSpan(req.method, req.headers);
  // A request can end by finishing its answer or by its connection closing first.
  const end = () => span.end(routeOf(req), res.statusCode);
  res.once('finish', end);
  res.once('close', end);
  span.run(next);
};
