import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isStoreUnavailable } from '../../../shared/platform/db/index';
import { AppError, errors, renderError } from '../../../shared/platform/errors/index';
import { describeError, logger } from '../../../shared/platform/logger/index';
import { recordDependencyError } from '../../../shared/platform/metrics/dependencies';

declare module 'express-serve-static-core' {
  interface Locals {
    /** Set by routes that answer HTML (the embed widget's pages): their errors are pages too. */
    errorPage?: (status: number, message: string) => { html: string; headers: Record<string, string> };
    /** Set where errors are another protocol's JSON (MCP's JSON-RPC): the body in place of the family's shape. */
    errorBody?: (err: AppError, status: number) => Record<string, unknown>;
  }
}

export function notFound(): RequestHandler {
  return (req, _res, next) => next(errors.notFound('route_not_found', `no route for ${req.method} ${req.path}`));
}

const GRPC_UNAVAILABLE = 14;
const GRPC_DEADLINE_EXCEEDED = 4;

/** The Temporal client wraps gRPC failures; unreachable or too slow means "retry later", not a bug. */
function isTemporalUnavailable(err: unknown): boolean {
  const e = err as { name?: string; code?: number; message?: string; cause?: { code?: number } } | undefined;
  if (!e) return false;
  const code = e.cause?.code ?? e.code;
  return (
    ((e.name === 'ServiceError' || e.name === 'TransportError') &&
      (code === GRPC_UNAVAILABLE ||
        code === GRPC_DEADLINE_EXCEEDED ||
        /unavailable|connect|deadline/i.test(e.message ?? ''))) ||
    e.code === GRPC_UNAVAILABLE
  );
}

/** The one place an error becomes a response. */
export function errorHandler(helpBaseUrl: string): ErrorRequestHandler {
  return (err, _req, res, next) => {
    if (res.headersSent) return next(err);
    let appError: AppError;
    if (err instanceof AppError) {
      appError = err;
    } else if (isStoreUnavailable(err)) {
      appError = errors.unavailable('store_unavailable', 'the data store is unavailable; retry shortly');
    } else if (isTemporalUnavailable(err)) {
      appError = errors.unavailable('workflow_engine_unavailable', 'the workflow engine is unavailable; retry shortly');
    } else {
      logger.error('unhandled error', describeError(err));
      appError = errors.internal('internal_error', 'unexpected failure');
    }
    recordDependencyError(appError.code);
    if (appError.status >= 500 && appError.status !== 503) logger.error('request failed', { code: appError.code });
    const { status, body } = renderError(appError, res.locals.errorShape ?? 'gateway', {
      requestId: res.locals.requestId,
      helpBaseUrl,
    });
    if (status === 503) res.setHeader('Retry-After', '2');
    for (const [k, v] of Object.entries(appError.headers ?? {})) res.setHeader(k, v);
    const page = res.locals.errorPage?.(status, appError.message);
    if (page) {
      res.status(status).set(page.headers).type('html').send(page.html);
      return;
    }
    res.status(status).json(res.locals.errorBody?.(appError, status) ?? body);
  };
}
