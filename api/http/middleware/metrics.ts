import type { Express, Request, RequestHandler } from 'express';
import { httpRequestDuration } from '../../../shared/platform/metrics/http';

const ROUTE = Symbol('route');
const PATTERN = Symbol('routePattern');
type Tracked = Request & { [ROUTE]?: Request['route']; [PATTERN]?: string };

/**
 * Records http_request_duration_seconds{method, route, status} for every request of `app`.
 * The full route pattern is taken when Express sets req.route: read at `finish` instead, Express
 * would already have reset req.baseUrl when an error left a mounted router ("/runs/:runId" without
 * "/api/agent-webhooks"). The accessor sits on this app's request prototype, not on each request
 * (a per-request defineProperty cost ~10 µs of CPU).
 */
export function requestMetrics(app: Express): RequestHandler {
  Object.defineProperty(app.request, 'route', {
    configurable: true,
    get(this: Tracked) {
      return this[ROUTE];
    },
    set(this: Tracked, value: Request['route']) {
      this[ROUTE] = value;
      if (value?.path) this[PATTERN] = `${this.baseUrl}${String(value.path)}`;
    },
  });
  return (req, res, next) => {
    const stop = httpRequestDuration.startTimer();
    res.on('finish', () => stop({ method: req.method, route: routeOf(req), status: String(res.statusCode) }));
    next();
  };
}

/** The request's full route pattern as requestMetrics recorded it ("/api/agent-webhooks/:workflowId/trigger"). */
export function routeOf(req: Request): string {
  return (req as Tracked)[PATTERN] ?? 'unmatched';
}
