import type { RequestHandler } from 'express';
import type Joi from 'joi';
import type { ErrorShape } from '../../../shared/platform/errors/index';

/** Which listener serves an operation: the main host ({base_url}), the bearer host ({api_url}) or both. */
export type Host = 'main' | 'bearer' | 'both';

/** How a caller is authorised; an operation lists the alternatives it accepts. */
export type Auth =
  | { kind: 'none' }
  /** The signed request envelope: the message's action and product line (docs/signing.md). */
  | { kind: 'signed'; action: string; productLine: string }
  /** Authorization: Bearer act_… (a wallet's access token). */
  | { kind: 'act' }
  /** Authorization: Bearer agt_… (an agent group's token). */
  | { kind: 'agt' }
  /** Authorization: Bearer base64("<api_key>:<budget_key>"). */
  | { kind: 'budget' }
  /** The x402 handshake: a 402 challenge, then the same request with X-PAYMENT. */
  | { kind: 'x402' }
  /** X-Job-Workflow-Token from the reserve answer. */
  | { kind: 'job_workflow_token' }
  /** The widget's short-lived sign-in token. */
  | { kind: 'embed' }
  /** An operator's token (HEALTH_DETAILS_TOKEN, METRICS_TOKEN). */
  | { kind: 'operator' }
  /** The console's session cookie (signed in with a workspace API key). */
  | { kind: 'console' };

/**
 * An OpenAPI link: the operation a client may call next with values from this answer or its
 * request (runtime expressions such as `$response.body#/data/run/run_id`, `$request.path.jobId`).
 */
export interface Link {
  operationId: string;
  description: string;
  parameters?: Record<string, string>;
  /** Body fields (values may be runtime expressions). */
  requestBody?: Record<string, unknown>;
}

/** One declared answer: its schema (JSON unless contentType says otherwise). */
export interface ResponseSpec {
  description: string;
  body?: Joi.Schema;
  contentType?: string;
  /** Other media types the same answer may come in (content negotiation, files): bodies as text. */
  alsoAs?: readonly string[];
  /** What may be called next with this answer (documented; followed by the fuzzer's stateful phase). */
  links?: Record<string, Link>;
}

export interface Example {
  name: string;
  request: {
    params?: Record<string, unknown>;
    query?: Record<string, unknown>;
    headers?: Record<string, string>;
    body?: unknown;
  };
  response: { status: number; body?: unknown };
}

/** Errors of an operation: JSON in one of the spec's shapes, or HTML pages (the widget's). */
export type ErrorStyle = ErrorShape | 'html';

/**
 * One HTTP operation, declared once: express mounts it (api/operations/mount.ts) and the
 * OpenAPI document describes it (api/operations/openapi.ts).
 */
export interface Operation {
  id: string;
  /**
   * false: mounted and checked like any declaration (405s, validation, the route census) but left
   * out of the OpenAPI document, so neither the SDK nor the fuzzer sees it (the console's pages are
   * for a person in a browser, not part of the API).
   */
  documented?: false;
  method: 'get' | 'post' | 'put' | 'delete';
  /**
   * Mount every method on the path (the spec's /health answers whatever comes); documented under each
   * method OpenAPI names. Otherwise the path serves `method` (GET also HEAD, OPTIONS lists them) and
   * any other method is refused with 405 before any route runs (operations/methods.ts).
   */
  anyMethod?: boolean;
  /** The full path, OpenAPI style: /api/external/jobs/{jobId}/reserve. */
  path: string;
  host: Host;
  auth: readonly Auth[];
  tag: string;
  summary: string;
  description?: string;
  request?: { params?: Joi.ObjectSchema; query?: Joi.ObjectSchema; headers?: Joi.ObjectSchema; body?: Joi.Schema };
  /**
   * 'handler': the params, query and body schemas are documented, the handler checks them itself (in
   * its own error status). Declared headers are checked by the mount either way (422 `detail[]`,
   * loc ['header', name]); a header the handler reads as absent when empty declares `.allow('')`.
   */
  validation?: 'mount' | 'handler';
  /** Success answers and the error answers whose body is not the family's error shape. */
  responses: Record<number, ResponseSpec>;
  /** Error statuses this operation answers with in `errors`' shape. */
  errorStatuses: readonly number[];
  errors: ErrorStyle;
  /**
   * Sets how this operation's errors look where `errors` alone does not say it (`res.locals.errorPage` for
   * HTML pages, `res.locals.errorBody` for MCP's JSON-RPC). Run for the refusals answered before any route
   * (the 405 of a method its path does not serve, operations/methods.ts); inside its route, its family's
   * middleware does the same.
   */
  errorFormat?: RequestHandler;
  examples: readonly Example[];
  /** Run before the body and query are checked (limits and auth the spec checks first); params are checked before these. */
  before?: readonly RequestHandler[];
  /** Run after validation, before the handler (signed envelope, per-wallet limits). */
  middleware?: readonly RequestHandler[];
  handler: RequestHandler;
}
