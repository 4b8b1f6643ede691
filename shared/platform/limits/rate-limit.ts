import { ids } from '../ids/index';
import { isIPv6 } from 'node:net';
import { insertOnce, type Models } from '../db/index';
import { errors } from '../errors/index';
import type { RateLimitDoc } from './model';

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** IPv4 as is; IPv6 by its /64, since one host commonly holds a whole /64. */
/** The rate-limit key of the client that sent a request (its address, per clientKey). */
export function requestClient(req: { ip?: string; socket: { remoteAddress?: string } }): string {
  return clientKey(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

export function clientKey(ip: string): string {
  const v4mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (v4mapped) return v4mapped[1];
  if (!isIPv6(ip)) return ip;
  const [head, tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => parseInt(g || '0', 16).toString(16)).join(':')}::/64`;
}

/**
 * One hit per window per key, shared by every API instance through the store. Each hit is an
 * insert keyed by (key, window slot), so the unique _id arbitrates concurrent hits; the previous
 * slot is checked too, which makes the window sliding rather than fixed.
 */
export class RateLimiter {
  constructor(
    private readonly models: Pick<Models, 'rateLimits'>,
    readonly limit: number,
    readonly windowSeconds: number,
  ) {}

  async hit(key: string, now = new Date()): Promise<RateDecision> {
    const windowMs = this.windowSeconds * 1000;
    const slot = Math.floor(now.getTime() / windowMs);
    const previous = await this.models.rateLimits.findById(`${key}|${slot - 1}`).lean<RateLimitDoc>().exec();
    if (previous && now.getTime() - previous.last_at.getTime() < windowMs) return this.refuse(previous.last_at, now);
    if (await insertOnce(this.models.rateLimits, { _id: `${key}|${slot}`, last_at: now })) return { allowed: true };
    const current = await this.models.rateLimits.findById(`${key}|${slot}`).lean<RateLimitDoc>().exec();
    return this.refuse(current?.last_at ?? now, now);
  }

  private refuse(lastAt: Date, now: Date): RateDecision {
    const left = this.windowSeconds * 1000 - (now.getTime() - lastAt.getTime());
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(left / 1000)) };
  }
}

/**
 * `limit` hits per fixed window per key, shared by every API instance. Each hit inserts its own
 * row and then counts the window's rows: an insert never loses to a concurrent one (no filtered
 * update, which FerretDB does not apply atomically), so the count never undercounts.
 */
export class CountingRateLimiter {
  constructor(
    private readonly models: Pick<Models, 'rateLimits'>,
    readonly limit: number,
    readonly windowSeconds: number,
  ) {}

  async hit(key: string, now = new Date()): Promise<RateDecision> {
    const windowMs = this.windowSeconds * 1000;
    const slot = Math.floor(now.getTime() / windowMs);
    const bucket = `${key}|${slot}`;
    await this.models.rateLimits.collection.insertOne({ _id: ids.row(bucket), bucket, last_at: now } as never);
    const count = await this.models.rateLimits.countDocuments({ bucket }).exec();
    if (count <= this.limit) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(((slot + 1) * windowMs - now.getTime()) / 1000)) };
  }

  /** Throws the gateway's 429 (Retry-After and a rate_limit block) when `key` is over its limit. */
  async enforce(key: string, what: string): Promise<void> {
    const decision = await this.hit(key);
    if (decision.allowed) return;
    throw errors.tooMany('rate_limited', `at most ${this.limit} ${what} per ${this.windowSeconds} s; retry after ${decision.retryAfterSeconds} s`, {
      extra: { rate_limit: { limit: this.limit, window_seconds: this.windowSeconds, retry_after_seconds: decision.retryAfterSeconds } },
      headers: { 'Retry-After': String(decision.retryAfterSeconds) },
    });
  }
}
