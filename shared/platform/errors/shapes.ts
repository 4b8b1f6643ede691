import { AppError, ValidationError } from './app-error';

/** The spec's four error bodies; each route family renders one of them. */
export type ErrorShape = 'validation' | 'tool' | 'gateway' | 'webhook';

export interface RenderContext {
  requestId: string;
  helpBaseUrl: string;
}

export interface RenderedError {
  status: number;
  body: Record<string, unknown>;
}

const STATUS_LABELS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function statusLabel(status: number): string {
  return STATUS_LABELS[status] ?? 'Error';
}

/**
 * Validation failures keep the 422 `detail[]` shape on FastAPI-style endpoints; the tool and
 * webhook families answer them as 400 in their own shape, as the spec's error table says.
 */
export function renderError(err: AppError, shape: ErrorShape, ctx: RenderContext): RenderedError {
  if (err.body) return { status: err.status, body: err.body };
  if (err instanceof ValidationError && (shape === 'validation' || shape === 'gateway')) {
    return { status: 422, body: { detail: err.issues } };
  }
  const status = err instanceof ValidationError ? 400 : err.status;
  const code = err instanceof ValidationError ? 'invalid_request' : err.code;
  switch (shape) {
    case 'tool':
      return {
        status,
        body: {
          success: false,
          error: err.message,
          code,
          ...(err.details ? { details: err.details } : {}),
          ...err.extra,
        },
      };
    case 'webhook':
      return { status, body: { success: false, error: code, message: err.message, ...err.extra } };
    case 'validation':
    case 'gateway':
      return {
        status,
        body: {
          error: statusLabel(status),
          message: err.message,
          error_code: code,
          request_id: ctx.requestId,
          help_url: `${ctx.helpBaseUrl}/docs/errors#${code}`,
          help_doc: `docs/errors.md#${code}`,
          ...(err.details ? { details: err.details } : {}),
          ...err.extra,
        },
      };
  }
}
