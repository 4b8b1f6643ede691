import type { LookupAddress } from 'node:dns';
import { headerOf, RefusedTarget, safeRequest } from '../platform/http/outbound';

export { RefusedTarget };

export interface SafePostOptions {
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowLoopback?: boolean;
  /** Extra trusted CAs (tests' self-signed receiver). */
  ca?: string | Buffer;
  signal?: AbortSignal;
  /** Resolves a host name to all its addresses (tests inject one); default: the system resolver. */
  resolve?: (host: string) => Promise<LookupAddress[]>;
}

export interface PostResult {
  status: number;
  retryAfter: string | null;
  location: string | null;
  /** The receiver's `webhook-delivery` answer header (`abort-message` stops retries). */
  delivery: string | null;
}

/**
 * A callback POST of JSON through the shared outbound module (shared/platform/http/outbound.ts).
 * Only the status and headers matter, so no body is read (maxResponseBytes 0): the connection is
 * closed at the receiver's head, and the whole attempt ends within `timeoutMs` whatever it sends.
 */
export async function safePost(url: string, o: SafePostOptions): Promise<PostResult> {
  const res = await safeRequest(url, {
    method: 'POST',
    body: o.body,
    headers: { 'content-type': 'application/json', 'user-agent': 'agent-commerce-callbacks/1', ...o.headers },
    timeoutMs: o.timeoutMs,
    maxResponseBytes: 0,
    allowLoopback: o.allowLoopback,
    ca: o.ca,
    signal: o.signal,
    resolve: o.resolve,
  });
  return {
    status: res.status,
    retryAfter: headerOf(res.headers['retry-after']),
    location: headerOf(res.headers.location),
    delivery: headerOf(res.headers['webhook-delivery']),
  };
}

/**
 * A failed attempt as its group may read it (callback_last_error, the next attempt's body) and as
 * the operator's log keeps it. A refusal tells the group no address (see RefusedTarget); a socket
 * error's message ends with the address and port it was dialled on, which is our resolver's
 * answer too, so the group reads only its system call and code ("connect ECONNREFUSED").
 */
export function attemptError(err: Error): { error: string; detail: string } {
  if (err instanceof RefusedTarget) return { error: err.message, detail: err.detail };
  const { code, syscall } = err as NodeJS.ErrnoException;
  if (typeof code === 'string' && typeof syscall === 'string')
    return { error: `${syscall} ${code}`, detail: err.message };
  return { error: err.message, detail: err.message };
}
