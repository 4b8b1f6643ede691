/**
 * A per-process cache with a bound on its entries (the oldest write goes first) and, optionally,
 * an age past which an entry is not served. Without `ttlMs`, for values that never change once
 * stored (published workflow versions, agent groups, sessions, ledger heads): nothing to
 * invalidate. The process's one in-memory cache: a user that needs more extends this class
 * rather than keeping a Map of its own, so every such cache is bounded the same way.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, { at: number; value: V }>();

  /**
   * @param max entries kept at most; 0 or less keeps nothing (a cache switched off by config).
   * @param ttlMs age (since the entry's last `set`) from which it is no longer served.
   * @param clock the time source, so tests can move time without waiting.
   */
  constructor(
    private readonly max: number,
    private readonly ttlMs = Infinity,
    private readonly clock: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (this.clock() - e.at >= this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  /**
   * Stores `value` and returns it. A key written again moves to the newest position, so the
   * eviction order follows the write times the TTL is measured from.
   */
  set(key: string, value: V): V {
    if (this.max <= 0) return value;
    const now = this.clock();
    this.entries.delete(key);
    // Entries are in write order and share one TTL, so the expired ones are the oldest: dropping
    // them here keeps a cache that is rarely read from holding its dead entries until evicted.
    for (const [oldest, e] of this.entries) {
      if (now - e.at < this.ttlMs) break;
      this.entries.delete(oldest);
    }
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { at: now, value });
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
