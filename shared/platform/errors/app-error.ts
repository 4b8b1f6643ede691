/** One field problem in the spec's validation shape. */
export interface ValidationIssue {
  loc: string[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export interface AppErrorOptions {
  details?: Record<string, unknown>;
  /** Extra top-level fields some shapes carry (rate_limit, data). */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** A body that replaces the family's error shape (the x402 challenge of a 402). */
  body?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The only error type routes and services throw on purpose. `code` is a stable
 * snake_case identifier clients may branch on; `message` is for people.
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly details?: Record<string, unknown>;
  readonly extra?: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  readonly body?: Record<string, unknown>;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.details = options.details;
    this.extra = options.extra;
    this.headers = options.headers;
    this.body = options.body;
  }
}

/** Request input that failed validation; rendered as 422 `detail[]` or a 400 per shape. */
export class ValidationError extends AppError {
  constructor(readonly issues: ValidationIssue[]) {
    super(422, 'validation_error', issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '), {
      details: { issues },
    });
  }
}

export const errors = {
  badRequest: (code: string, message: string, o?: AppErrorOptions) => new AppError(400, code, message, o),
  unauthorized: (code: string, message: string, o?: AppErrorOptions) => new AppError(401, code, message, o),
  paymentRequired: (code: string, message: string, o?: AppErrorOptions) => new AppError(402, code, message, o),
  forbidden: (code: string, message: string, o?: AppErrorOptions) => new AppError(403, code, message, o),
  notFound: (code: string, message: string, o?: AppErrorOptions) => new AppError(404, code, message, o),
  conflict: (code: string, message: string, o?: AppErrorOptions) => new AppError(409, code, message, o),
  tooMany: (code: string, message: string, o?: AppErrorOptions) => new AppError(429, code, message, o),
  internal: (code: string, message: string, o?: AppErrorOptions) => new AppError(500, code, message, o),
  unavailable: (code: string, message: string, o?: AppErrorOptions) => new AppError(503, code, message, o),
};
