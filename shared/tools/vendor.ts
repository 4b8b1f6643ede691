/**
 * Calling a vendor's HTTP endpoint for one action (the vendor contract, docs/tools.md):
 * POST <url> with JSON `{action, parameters, request_id}` (GET: parameters as the query), the
 * stored secret in the configured header, `Idempotency-Key` (see vendorRequestId), a deadline, and the caller's AbortSignal. A 2xx JSON
 * object is the result; anything else is a failure whose details never carry the secret.
 */
import { keepAliveAgents, type OutboundResponse, safeRequest, TimedOut } from '../platform/http/outbound';
import { sha256Hex } from '../platform/ids/index';
import type { ActionRunner } from './models/tool-product';

/**
 * The request id a vendor sees (body `request_id`, `x-request-id`, `Idempotency-Key`) for one
 * paying account's request id: request ids are chosen by callers and unique only per account, so
 * two wallets using the same one must not collide at a vendor that de-duplicates on it.
 */
export function vendorRequestId(account: string, requestId: string): string {
  return `req_${sha256Hex(`${account}\n${requestId}`)}`;
}

export type VendorOutcome =
  | { ok: true; response: Record<string, unknown>; warnings?: unknown[] }
  | { ok: false; kind: 'timeout' }
  | { ok: false; kind: 'aborted' }
  | { ok: false; kind: 'error'; status?: number; body?: unknown; reason: string };

const MAX_RESPONSE_BYTES = 1024 * 1024;
const MAX_ERROR_BODY = 2000;

function redact(text: string, secret: string | undefined): string {
  return secret && secret.length >= 4 ? text.split(secret).join('[redacted]') : text;
}

// Vendors are called again and again: their connections are kept alive, one pool per process.
const agents = keepAliveAgents();

export async function callVendor(
  runner: Extract<ActionRunner, { kind: 'http' }>,
  call: {
    action: string;
    parameters: Record<string, unknown>;
    requestId: string;
    secret?: string;
    signal?: AbortSignal;
  },
): Promise<VendorOutcome> {
  // The same key on every attempt of one paid call: a vendor may answer a repeat from its record.
  const headers: Record<string, string> = {
    accept: 'application/json',
    'x-request-id': call.requestId,
    'idempotency-key': call.requestId,
  };
  if (call.secret) {
    const scheme = runner.auth_scheme ?? 'Bearer';
    headers[(runner.auth_header ?? 'authorization').toLowerCase()] = scheme ? `${scheme} ${call.secret}` : call.secret;
  }
  let url = runner.url;
  let body: string | undefined;
  if (runner.method === 'GET') {
    const u = new URL(runner.url);
    // Query parameters fixed in the operator's URL (a key, a mode) are not the caller's to change.
    const fixed = new Set(u.searchParams.keys());
    for (const [k, v] of Object.entries(call.parameters))
      if (!fixed.has(k)) u.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v));
    url = u.toString();
  } else {
    headers['content-type'] = 'application/json';
    body = JSON.stringify({ action: call.action, parameters: call.parameters, request_id: call.requestId });
  }
  let res: OutboundResponse;
  try {
    res = await safeRequest(url, {
      method: runner.method,
      headers,
      body,
      signal: call.signal,
      timeoutMs: runner.timeout_ms,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      operatorTarget: agents,
    });
  } catch (err) {
    if (err instanceof TimedOut) return { ok: false, kind: 'timeout' };
    if (call.signal?.aborted) return { ok: false, kind: 'aborted' };
    return { ok: false, kind: 'error', reason: redact(`vendor unreachable: ${(err as Error).message}`, call.secret) };
  }
  const text = res.body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  // A redirect is not followed: the operator configured this URL, and a 3xx is an answer like a 4xx.
  if (res.status < 200 || res.status > 299) {
    const shown =
      parsed !== undefined
        ? JSON.parse(redact(JSON.stringify(parsed), call.secret))
        : redact(text.slice(0, MAX_ERROR_BODY), call.secret);
    return { ok: false, kind: 'error', status: res.status, body: shown, reason: `vendor answered ${res.status}` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, kind: 'error', status: res.status, reason: 'vendor answered without a JSON object' };
  }
  const obj = parsed as Record<string, unknown>;
  // A vendor may wrap its result as {result, warnings}; otherwise the whole object is the result.
  if ('result' in obj && obj.result !== null && typeof obj.result === 'object' && !Array.isArray(obj.result)) {
    return {
      ok: true,
      response: obj.result as Record<string, unknown>,
      ...(Array.isArray(obj.warnings) ? { warnings: obj.warnings } : {}),
    };
  }
  return { ok: true, response: obj };
}
