/**
 * One error type for every failure the SDK reports. The service answers in four shapes (gateway,
 * tool, webhook, validation: docs/errors.md); each carries a stable code in a different field, and
 * `fromResponse` reads it from wherever that shape keeps it. The hint is the catalog's "what to do".
 */
import { ERROR_CATALOG } from '../../shared/composition/error-catalog';

/** Codes the SDK itself raises (no request was answered with them); all start with `sdk_`. */
export type ClientErrorCode =
  | 'sdk_missing_key'
  | 'sdk_missing_token'
  | 'sdk_bad_input'
  | 'sdk_wait_timeout'
  | 'sdk_bad_response'
  | 'sdk_network'
  | 'sdk_callback_invalid';

export interface AgentCommerceErrorInit {
  code: string;
  message: string;
  /** HTTP status; 0 when no answer came (network, client-side checks). */
  status: number;
  hint?: string;
  body?: unknown;
  requestId?: string;
}

export class AgentCommerceError extends Error {
  readonly code: string;
  readonly status: number;
  readonly hint: string | undefined;
  /** The parsed error body as the service sent it (its `details`, `rate_limit`, `data` ...). */
  readonly body: unknown;
  readonly requestId: string | undefined;

  constructor(init: AgentCommerceErrorInit) {
    super(init.message);
    this.name = 'AgentCommerceError';
    this.code = init.code;
    this.status = init.status;
    this.hint = init.hint ?? hintFor(init.code);
    this.body = init.body;
    this.requestId = init.requestId;
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      status: this.status,
      hint: this.hint ?? null,
      ...(this.requestId ? { request_id: this.requestId } : {}),
    };
  }
}

export function hintFor(code: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(ERROR_CATALOG, code) ? ERROR_CATALOG[code].action : undefined;
}

export function clientError(code: ClientErrorCode, message: string): AgentCommerceError {
  return new AgentCommerceError({ code, message, status: 0 });
}

type Body = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** The typed error for a non-2xx answer, whatever its shape. */
export function fromResponse(status: number, body: unknown, requestId?: string): AgentCommerceError {
  const b: Body = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Body) : {};
  let code: string | undefined;
  let message: string | undefined;
  if (Array.isArray(b.detail)) {
    // Validation (422): detail[{loc, msg, type}].
    code = 'validation_error';
    message = (b.detail as Array<{ loc?: unknown[]; msg?: string }>)
      .map((d) => `${(d.loc ?? []).join('.')}: ${d.msg ?? ''}`)
      .join('; ');
  } else if (str(b.error_code)) {
    code = str(b.error_code);
    message = str(b.message);
  } else if (str(b.code)) {
    // Tool errors: `error` is the message.
    code = str(b.code);
    message = str(b.error) ?? str(b.message);
  } else if (str(b.error)) {
    // Webhook errors and the x402 challenge: `error` is the code.
    code = str(b.error);
    message = str(b.message) ?? (status === 402 ? 'payment required' : undefined);
  }
  return new AgentCommerceError({
    code: code ?? `http_${status}`,
    message: message ?? `the service answered ${status}`,
    status,
    body,
    requestId: str(b.request_id) ?? requestId,
  });
}
