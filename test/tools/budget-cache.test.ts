import { ToolRepository } from '../../shared/tools/repository';
import { openTestDb } from '../support/db';

describe('wallet budgets read through the repository cache (real store)', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  const reads: string[] = [];
  beforeAll(async () => {
    db = await openTestDb();
    // Counts the store commands on wallet_budgets (mongoose's own command hook, nothing replaced).
    db.connection.set('debug', (collection: string, method: string) => {
      if (collection === 'wallet_budgets' && method === 'findOne') reads.push(method);
    });
  });
  afterAll(async () => {
    db.connection.set('debug', false);
    await db.drop();
  });

  const wallet = (c: string) => '0x' + c.repeat(40);

  it("no budget is cached like a budget; concurrent misses share one read; the repository's own set clears at once", async () => {
    // A cache time no store round trip on a loaded machine outlasts: the reads counted here are the cache's doing.
    const repo = new ToolRepository(db.models, { budgetCacheMs: 60_000 });
    const w = wallet('1');
    reads.length = 0;
    expect(await Promise.all(Array.from({ length: 5 }, () => repo.getBudget(w)))).toEqual(Array(5).fill(null));
    expect(reads).toHaveLength(1);
    expect(await repo.getBudget(w)).toBeNull();
    expect(reads).toHaveLength(1);

    await repo.setBudget(w, { per_call_credits: 5, daily_credits: null }, 'wallet');
    expect(await repo.getBudget(w)).toEqual({ per_call_credits: 5, daily_credits: null });
    expect(await repo.getBudget(w)).toEqual({ per_call_credits: 5, daily_credits: null });
    expect(reads).toHaveLength(2);
  });

  it('a change made by another process shows once the entry is older than the cache time, not before', async () => {
    const w = wallet('2');
    // 'quick' still has room for the set and the reads before its entry ages out on a loaded machine.
    const QUICK_MS = 3_000;
    const cached = new ToolRepository(db.models, { budgetCacheMs: 60_000 });
    const quick = new ToolRepository(db.models, { budgetCacheMs: QUICK_MS });
    const operator = new ToolRepository(db.models);
    expect(await cached.getBudget(w)).toBeNull();
    expect(await quick.getBudget(w)).toBeNull();
    const quickCachedBy = Date.now();
    await operator.setBudget(w, { per_call_credits: null, daily_credits: 9 }, 'operator');
    expect(await cached.getBudget(w)).toBeNull();
    expect(await quick.getBudget(w)).toBeNull();
    expect(Date.now() - quickCachedBy).toBeLessThan(QUICK_MS); // so the null above came from the cache
    await new Promise((r) => setTimeout(r, Math.max(0, quickCachedBy + QUICK_MS + 50 - Date.now())));
    expect(await quick.getBudget(w)).toEqual({ per_call_credits: null, daily_credits: 9 });
    expect(await cached.getBudget(w)).toBeNull();
  });

  it('a set during a read wins over the value that read brings back', async () => {
    const repo = new ToolRepository(db.models);
    const w = wallet('3');
    const reading = repo.getBudget(w);
    await repo.setBudget(w, { per_call_credits: 1, daily_credits: 2 }, 'wallet');
    await reading;
    expect(await repo.getBudget(w)).toEqual({ per_call_credits: 1, daily_credits: 2 });
  });
});
