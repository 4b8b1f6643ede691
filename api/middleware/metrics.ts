import type { Request, RequestHandler } from 'express';
import { httpRequestDuration } from '../../shared/metrics/http';

/**
 * Remembers the full pattern of the route that matched. Read at `finish` instead, Express would
 * already have reset req.baseUrl when an error left a mounted router ("/:id" without "/credits").
 */
function trackRoute(req: Request): () => string {
  let pattern = 'unmatched';
  let route: Request['route'];
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set: (value: Request['route']) => {
      route = value;
      if (value?.path) pattern = `${req.baseUrl}${String(value.path)}`;
    },
  });
  return () => pattern;
}

/** Records http_request_duration_seconds{method, route, status} for every request. */
export const requestMetrics: RequestHandler = (req, res, next) => {
  const stop = httpRequestDuration.startTimer();
  const route = trackRoute(req);
  res.on('finish', () => stop({ method: req.method, route: route(), status: String(res.statusCode) }));
  next();
};
