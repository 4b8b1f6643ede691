import type { HotRateLimits } from '../config/index';
import { BoundedCache } from '../cache/bounded-cache';
import { errors } from '../errors/index';
import type { RateDecision } from './rate-limit';

/** Keys one limiter tracks at most; past it the oldest key's bucket starts over full. */
const MAX_KEYS = 100_000;

type Bucket = { tokens: number; at: number };

/**
 * A token bucket per key, in this process only, for hot paths (invoke, purchase, x402 verify):
 * a hit is a map lookup and no store operation. `limit` is both the burst and what refills per
 * `windowSeconds`, so the sustained rate is limit/window per API process (docs/decisions.md:
 * a deployment of N API processes lets a key through up to N times that).
 */
export class LocalRateLimiter {
  private readonly buckets = new BoundedCache<Bucket>(MAX_KEYS);
  private readonly perMs: number;

  constructor(
    readonly limit: number,
    readonly windowSeconds: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.perMs = limit / (windowSeconds * 1000);
  }

  hit(key: string): RateDecision {
    const now = this.clock();
    const b = this.buckets.get(key) ?? this.buckets.set(key, { tokens: this.limit, at: now });
    b.tokens = Math.min(this.limit, b.tokens + (now - b.at) * this.perMs);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000)) };
  }

  /** Throws the 429 (Retry-After and a rate_limit block, in the route's error shape) when `key` is out of tokens. */
  enforce(key: string, what: string): void {
    const decision = this.hit(key);
    if (decision.allowed) return;
    throw errors.tooMany('rate_limited', `at most ${this.limit} ${what} per ${this.windowSeconds} s; retry after ${decision.retryAfterSeconds} s`, {
      extra: { rate_limit: { limit: this.limit, window_seconds: this.windowSeconds, retry_after_seconds: decision.retryAfterSeconds } },
      headers: { 'Retry-After': String(decision.retryAfterSeconds) },
    });
  }
}

/** The hot paths' limiters, one set per API process. */
export function hotLimiters(c: HotRateLimits) {
  return {
    invokePerClient: new LocalRateLimiter(c.invokePerClient, c.windowSeconds),
    invokePerWallet: new LocalRateLimiter(c.invokePerWallet, c.windowSeconds),
    purchasePerClient: new LocalRateLimiter(c.purchasePerClient, c.windowSeconds),
    x402PerPayer: new LocalRateLimiter(c.x402PerPayer, c.windowSeconds),
  };
}

export type HotLimiters = ReturnType<typeof hotLimiters>;
