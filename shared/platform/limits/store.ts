import { insertOnce } from '../db/index';
import type { PlatformModels as Models } from '../db/models';
import { ids } from '../ids/index';
import { type Limiter, type RateDecision, rateLimited } from './index';
import type { RateLimitDoc } from './model';

/**
 * One hit per window per key, shared by every API instance through the store. Each hit is an
 * insert keyed by (key, window slot), so the unique _id arbitrates concurrent hits; the previous
 * slot is checked too, which makes the window sliding rather than fixed.
 */
export class OncePerWindowLimiter implements Limiter {
  readonly limit = 1;

  constructor(
    private readonly models: Pick<Models, 'rateLimits'>,
    readonly windowSeconds: number,
  ) {}

  async hit(key: string, now = new Date()): Promise<RateDecision> {
    const windowMs = this.windowSeconds * 1000;
    const slot = Math.floor(now.getTime() / windowMs);
    const previous = await this.models.rateLimits
      .findById(`${key}|${slot - 1}`)
      .lean<RateLimitDoc>()
      .exec();
    if (previous && now.getTime() - previous.last_at.getTime() < windowMs) return this.refuse(previous.last_at, now);
    if (await insertOnce(this.models.rateLimits, { _id: `${key}|${slot}`, last_at: now })) return { allowed: true };
    const current = await this.models.rateLimits.findById(`${key}|${slot}`).lean<RateLimitDoc>().exec();
    return this.refuse(current?.last_at ?? now, now);
  }

  async enforce(key: string, what: string): Promise<void> {
    const decision = await this.hit(key);
    if (!decision.allowed) throw rateLimited(this, what, decision.retryAfterSeconds);
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
export class CountingLimiter implements Limiter {
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
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil(((slot + 1) * windowMs - now.getTime()) / 1000)),
    };
  }

  async enforce(key: string, what: string): Promise<void> {
    const decision = await this.hit(key);
    if (!decision.allowed) throw rateLimited(this, what, decision.retryAfterSeconds);
  }
}
