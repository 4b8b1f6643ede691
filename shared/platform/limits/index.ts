import { isIPv6 } from 'node:net';
import { errors } from '../errors/index';

/**
 * Rate limits: one interface, three implementations. Store-backed limits (limits/store.ts) are
 * shared by every API instance and fail closed with the store; the in-process token bucket
 * (limits/local.ts) costs no store operation, for the hot money paths. Callers and the HTTP
 * middleware (api/http/middleware/limits.ts) see only `Limiter`.
 */

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface Limiter {
  /** Hits allowed per window. */
  readonly limit: number;
  readonly windowSeconds: number;
  /** Counts one hit on `key` and says whether it is allowed. The in-process bucket answers synchronously. */
  hit(key: string, now?: Date): RateDecision | Promise<RateDecision>;
  /** Counts one hit and throws the 429 (`rateLimited`) when it is refused; `what` names what is limited in the message. */
  enforce(key: string, what: string): void | Promise<void>;
}

/** The 429 every limit answers: Retry-After and a rate_limit block, in the route's error shape. */
export function rateLimited(
  limiter: Pick<Limiter, 'limit' | 'windowSeconds'>,
  what: string,
  retryAfterSeconds: number,
) {
  return errors.tooMany(
    'rate_limited',
    `at most ${limiter.limit} ${what} per ${limiter.windowSeconds} s; retry after ${retryAfterSeconds} s`,
    {
      extra: {
        rate_limit: {
          limit: limiter.limit,
          window_seconds: limiter.windowSeconds,
          retry_after_seconds: retryAfterSeconds,
        },
      },
      headers: { 'Retry-After': String(retryAfterSeconds) },
    },
  );
}

/** The rate-limit key of the client that sent a request (its address, per clientKey). */
export function requestClient(req: { ip?: string; socket: { remoteAddress?: string } }): string {
  return clientKey(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

/** IPv4 as is; IPv6 by its /64, since one host commonly holds a whole /64. */
export function clientKey(ip: string): string {
  const v4mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (v4mapped) return v4mapped[1];
  if (!isIPv6(ip)) return ip;
  const [head, tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g || '0', 16).toString(16))
    .join(':')}::/64`;
}
