import { BoundedCache } from '../cache/bounded-cache';
import type { HotRateLimits } from '../config/index';
import { type Limiter, type RateDecision, rateLimited } from './index';

/** Keys one limiter tracks at most; past it the oldest key's bucket starts over full. */
const MAX_KEYS = 100_000;

type Bucket = { tokens: number; at: number };

/**
 * A token bucket per key, in this process only, for hot paths (invoke, purchase, x402 verify):
 * a hit is a map lookup and no store operation, and it answers synchronously. `limit` is both the
 * burst and what refills per `windowSeconds`, so the sustained rate is limit/window per API
 * process (docs/decisions.md: a deployment of N API processes lets a key through up to N times that).
 */
export class LocalLimiter implements Limiter {
  private readonly buckets = new BoundedCache<Bucket>(MAX_KEYS);
  private readonly perMs: number;

  constructor(
    readonly limit: number,
    readonly windowSeconds: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.perMs = limit / (windowSeconds * 1000);
  }

  hit(key: string, now?: Date): RateDecision {
    const at = now?.getTime() ?? this.clock();
    const b = this.buckets.get(key) ?? this.buckets.set(key, { tokens: this.limit, at });
    b.tokens = Math.min(this.limit, b.tokens + (at - b.at) * this.perMs);
    b.at = at;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000)) };
  }

  enforce(key: string, what: string): void {
    const decision = this.hit(key);
    if (!decision.allowed) throw rateLimited(this, what, decision.retryAfterSeconds);
  }
}

/** The in-process limits of the hot paths (MCP messages among them), one set per API process. */
export function localLimits(c: HotRateLimits) {
  return {
    invokePerClient: new LocalLimiter(c.invokePerClient, c.windowSeconds),
    invokePerWallet: new LocalLimiter(c.invokePerWallet, c.windowSeconds),
    purchasePerClient: new LocalLimiter(c.purchasePerClient, c.windowSeconds),
    x402PerPayer: new LocalLimiter(c.x402PerPayer, c.windowSeconds),
    mcpPerClient: new LocalLimiter(c.mcpPerClient, c.windowSeconds),
  };
}

export type LocalLimits = ReturnType<typeof localLimits>;
