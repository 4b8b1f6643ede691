import { LedgerStore } from '../../shared/credits/ledger-store';
import { ledgerEntryId } from '../../shared/credits/models/credit-transaction';
import { openTestDb } from '../support/db';

const DAY = 86_400_000;

describe('credit ledger on the real store', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let store: LedgerStore;
  beforeAll(async () => {
    db = await openTestDb();
    store = new LedgerStore(db.models);
  });
  afterAll(async () => {
    await db.drop();
  });

  it('50 concurrent spends of 1 against a balance of 20: exactly 20 succeed, none lost, never below zero', async () => {
    const wallet = '0x' + '1'.repeat(40);
    await store.grant({ wallet, credits: 20, creditType: 'admin_grant' });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.spend({ wallet, requestId: `r${i}`, credits: 1 })),
    );
    const ok = results.filter((r) => r.ok);
    expect(ok).toHaveLength(20);
    expect(results.filter((r) => !r.ok)).toHaveLength(30);
    expect((await store.balance(wallet)).balance).toBe(0);
    const { transactions } = await store.history(wallet, 100);
    const purchases = transactions.filter((t) => t.transaction_type === 'purchase');
    expect(purchases).toHaveLength(20);
    // Every balance_after is distinct and they cover 19..0: each was true at its moment.
    expect(purchases.map((t) => t.balance_after_credits).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
  });

  it('a spend is idempotent on its request id, even when the same id races itself', async () => {
    const wallet = '0x' + '2'.repeat(40);
    await store.grant({ wallet, credits: 10, creditType: 'admin_grant' });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => store.spend({ wallet, requestId: 'same', credits: 3 })),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results.filter((r) => r.ok && !r.replayed)).toHaveLength(1);
    expect((await store.balance(wallet)).balance).toBe(7);
    const again = await store.spend({ wallet, requestId: 'same', credits: 3 });
    expect(again).toMatchObject({ ok: true, replayed: true });
    expect((await store.balance(wallet)).balance).toBe(7);
  });

  it('spends from the grant that expires first and reports the next expiration', async () => {
    const wallet = '0x' + '3'.repeat(40);
    const now = new Date();
    await store.grant({
      wallet,
      grantId: 'late',
      credits: 100,
      creditType: 'admin_grant',
      expiresAt: new Date(now.getTime() + 30 * DAY),
    });
    await store.grant({
      wallet,
      grantId: 'soon',
      credits: 50,
      creditType: 'referral_signup',
      expiresAt: new Date(now.getTime() + 5 * DAY + 3600_000),
    });
    await store.grant({ wallet, grantId: 'never', credits: 10, creditType: 'admin_grant' });
    await store.spend({ wallet, requestId: 'a', credits: 60 });
    const { grants } = await store.history(wallet, 10);
    const remaining = Object.fromEntries(grants.map((g) => [g._id, g.remaining_credits]));
    expect(remaining).toEqual({ soon: 0, late: 90, never: 10 });
    const bal = await store.balance(wallet);
    expect(bal.balance).toBe(100);
    expect(bal.expires_in_days).toBe(29);
  });

  it('never counts an expired grant, before or after the sweep records it', async () => {
    const wallet = '0x' + '4'.repeat(40);
    await store.grant({
      wallet,
      grantId: 'old',
      credits: 40,
      creditType: 'admin_grant',
      expiresAt: new Date(Date.now() + 50),
      now: new Date(Date.now() - 10_000),
    });
    await store.grant({ wallet, grantId: 'fresh', credits: 5, creditType: 'admin_grant' });
    await new Promise((r) => setTimeout(r, 80));
    expect((await store.balance(wallet)).balance).toBe(5);
    expect(await store.spend({ wallet, requestId: 'x', credits: 6 })).toEqual({ ok: false, balance: 5 });
    expect(await store.walletsWithLapsedGrants(new Date(), 10)).toContain(wallet);
    expect(await store.recordExpirations(wallet)).toBe(1);
    expect(await store.recordExpirations(wallet)).toBe(0);
    expect(await store.walletsWithLapsedGrants(new Date(), 10)).not.toContain(wallet);
    const { transactions } = await store.history(wallet, 10);
    expect(transactions.find((t) => t.transaction_type === 'expiration')).toMatchObject({
      amount_credits: -40,
      balance_after_credits: 5,
    });
    expect((await store.balance(wallet)).balance).toBe(5);
  });

  it('grants once per grant id and revokes what is left', async () => {
    const wallet = '0x' + '5'.repeat(40);
    const a = await store.grant({ wallet, grantId: 'x402:abc', credits: 500, creditType: 'x402_purchase' });
    const b = await store.grant({ wallet, grantId: 'x402:abc', credits: 500, creditType: 'x402_purchase' });
    expect(a.replayed).toBe(false);
    expect(b.replayed).toBe(true);
    await store.spend({ wallet, requestId: 'q', credits: 120 });
    expect(await store.revokeGrant({ wallet, grantId: 'x402:abc', reason: 'chargeback' })).toEqual({
      revoked_credits: 380,
    });
    expect((await store.balance(wallet)).balance).toBe(0);
    const { transactions } = await store.history(wallet, 10);
    expect(transactions.map((t) => [t.transaction_type, t.amount_credits, t.balance_after_credits])).toEqual([
      ['revocation', -380, 0],
      ['purchase', -120, 380],
      ['grant', 500, 500],
    ]);
  });

  it('keeps one entry per position even when writers race on a fresh wallet', async () => {
    const wallet = '0x' + '6'.repeat(40);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.grant({ wallet, grantId: `g${i}`, credits: 1, creditType: 'admin_grant' }),
      ),
    );
    const seqs = (await db.models.creditTransactions.find({ user_id: wallet }, { seq: 1 }).lean())
      .map((d) => d.seq)
      .sort((a, b) => a - b);
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect((await store.balance(wallet)).balance).toBe(10);
  });

  it('answers from the latest entry even when the head hint lags or is gone', async () => {
    const wallet = '0x' + '7'.repeat(40);
    await store.grant({ wallet, grantId: 'h1', credits: 100, creditType: 'admin_grant' });
    const first = (await db.models.creditTransactions.findById(ledgerEntryId(wallet, 1)).lean())!;
    await store.spend({ wallet, requestId: 'h-a', credits: 30 });
    await store.spend({ wallet, requestId: 'h-b', credits: 5 });
    // A late writer put an older head back.
    await db.models.creditHeads.collection.replaceOne(
      { _id: wallet } as never,
      { seq: 1, live_grants: first.live_grants, open_holds: [] } as never,
      { upsert: true },
    );
    expect((await store.balance(wallet)).balance).toBe(65);
    await db.models.creditHeads.deleteOne({ _id: wallet });
    expect((await store.balance(wallet)).balance).toBe(65);
    expect(await store.spend({ wallet, requestId: 'h-c', credits: 65 })).toMatchObject({ ok: true, replayed: false });
    expect((await store.balance(wallet)).balance).toBe(0);
    // A retried spend answers with its recorded transaction even when the balance no longer covers it.
    expect(await store.spend({ wallet, requestId: 'h-a', credits: 30 })).toMatchObject({
      ok: true,
      replayed: true,
      transaction: { _id: `purchase:${wallet}:h-a`, amount_credits: -30 },
    });
  });

  it('writes no hint for a first entry: a cold reader asks for that entry alongside the hint', async () => {
    const wallet = '0x' + 'a'.repeat(40);
    await store.grant({
      wallet,
      grantId: 'n1',
      credits: 40,
      creditType: 'admin_grant',
      expiresAt: new Date(Date.now() + DAY),
    });
    const lookups: string[] = [];
    db.connection.set('debug', (collection: string, method: string) => lookups.push(`${collection}.${method}`));
    try {
      expect((await new LedgerStore(db.models).balance(wallet)).balance).toBe(40);
      // A cold writer on an account it has never seen: the grant lands on the next position.
      await new LedgerStore(db.models).grant({ wallet, grantId: 'n2', credits: 2, creditType: 'admin_grant' });
    } finally {
      db.connection.set('debug', false);
    }
    expect(lookups.filter((l) => l.startsWith('credit_heads.')).sort()).toEqual([
      'credit_heads.findOne',
      'credit_heads.findOne',
    ]);
    expect(await db.models.creditHeads.findById(wallet).lean()).toBeNull();
    expect((await store.balance(wallet)).balance).toBe(42);
    expect(
      (await db.models.creditTransactions.find({ user_id: wallet }, { seq: 1 }).lean()).map((d) => d.seq).sort(),
    ).toEqual([1, 2]);
  });

  it('finds the head of a long ledger with a lagging hint in a few lookups', async () => {
    const wallet = '0x' + '9'.repeat(40);
    await store.grant({ wallet, grantId: 'long', credits: 1000, creditType: 'admin_grant' });
    for (let i = 0; i < 150; i++) await store.spend({ wallet, requestId: `l-${i}`, credits: 1 });
    // A cold reader (another process) that only has the first hint.
    await db.models.creditHeads.collection.updateOne({ _id: wallet } as never, { $set: { seq: 1 } });
    const lookups: string[] = [];
    db.connection.set('debug', (collection: string, method: string) => lookups.push(`${collection}.${method}`));
    try {
      expect((await new LedgerStore(db.models).balance(wallet)).balance).toBe(850);
    } finally {
      db.connection.set('debug', false);
    }
    // 150 entries past the hint: a forward scan would need 151 lookups.
    expect(lookups.filter((l) => l === 'credit_transactions.findOne').length).toBeLessThanOrEqual(
      2 * Math.ceil(Math.log2(150)) + 2,
    );
  });

  it('sees writes from another API instance although it remembers heads it has seen', async () => {
    const wallet = '0x' + '8'.repeat(40);
    const other = new LedgerStore(db.models);
    await store.grant({ wallet, grantId: 'x1', credits: 50, creditType: 'admin_grant' });
    expect((await store.balance(wallet)).balance).toBe(50);
    await other.spend({ wallet, requestId: 'o-1', credits: 20 });
    await other.spend({ wallet, requestId: 'o-2', credits: 20 });
    expect((await store.balance(wallet)).balance).toBe(10);
    expect(await store.spend({ wallet, requestId: 's-1', credits: 11 })).toEqual({ ok: false, balance: 10 });
  });
});
