import { isIPv6 } from 'node:net';
import { insertOnce, type Models } from '../../shared/db';
import type { RateLimitDoc } from '../../shared/db/models/rate-limit';

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** IPv4 as is; IPv6 by its /64, since one host commonly holds a whole /64. */
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
