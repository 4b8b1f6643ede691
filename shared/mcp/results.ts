import type { PaymentRequired, SettleResponse } from '../payments/index';
import type { AppError } from '../platform/errors/index';
import { MCP_META } from '../tools/index';

export interface ToolCallResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** The tool's answer: its JSON as text for any client, and structured beside what the call cost. */
export function paidResult(
  response: unknown,
  paid: Record<string, unknown>,
  meta?: Record<string, unknown>,
): ToolCallResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(response) }],
    structuredContent: { response, ...paid },
    ...(meta ? { _meta: meta } : {}),
  };
}

/**
 * A refusal or failure the model can read and act on: our catalog `code` (docs/errors.md),
 * the HTTP status the same refusal has on the REST API, and its details.
 */
export function toolError(err: AppError): ToolCallResult {
  const error = {
    code: err.code,
    message: err.message,
    status: err.status,
    ...(err.details ? { details: err.details } : {}),
  };
  return {
    isError: true,
    content: [{ type: 'text', text: `${err.code}: ${err.message}` }],
    structuredContent: { error },
  };
}

/**
 * The x402 MCP transport's answer to a call that must be paid (or whose payment was refused):
 * the PaymentRequired both as structured content and as its JSON text. Its `error` is our code.
 */
export function paymentRequiredResult(challenge: PaymentRequired): ToolCallResult {
  const structured = challenge as unknown as Record<string, unknown>;
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
}

/** The settlement as the x402 MCP transport reports it on a paid result. */
export function paymentResponseMeta(settled: SettleResponse): Record<string, unknown> {
  return { [MCP_META.x402PaymentResponse]: settled };
}
