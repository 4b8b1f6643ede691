import { LedgerStore } from '../../shared/credits/ledger-store';
import { openTestDb } from '../support/db';

describe('ledger holds on the real store', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let store: LedgerStore;
  beforeAll(async () => {
    db = await openTestDb();
    store = new LedgerStore(db.models);
  });
  afterAll(async () => {
    await db.drop();
  });

  const acct = (c: string) => '0x' + c.repeat(40);

  it('a hold excludes its credits from the balance; capture writes one purchase with the details; both idempotent', async () => {
    const account = acct('a');
    await store.grant({ wallet: account, credits: 10, creditType: 'admin_grant' });
    const held = await store.hold({ account, holdId: 'h1', credits: 4, details: { product: 'p', action: 'a' } });
    expect(held).toMatchObject({ ok: true, hold: { hold_id: 'h1', credits: 4 } });
    expect((await store.balance(account)).balance).toBe(6);
    expect(await store.hold({ account, holdId: 'h1', credits: 4 })).toMatchObject({ ok: true });
    expect((await store.balance(account)).balance).toBe(6);
    const [a, b] = await Promise.all([
      store.capture({ account, holdId: 'h1' }),
      store.capture({ account, holdId: 'h1' }),
    ]);
    expect([a.replayed, b.replayed].sort()).toEqual([false, true]);
    expect(a.transaction._id).toBe(b.transaction._id);
    expect(a.transaction).toMatchObject({ transaction_type: 'purchase', amount_credits: -4, balance_after_credits: 6 });
    expect(JSON.parse(a.transaction.details!)).toEqual({ product: 'p', action: 'a' });
    expect(await store.release({ account, holdId: 'h1' })).toEqual({ released: false });
    expect((await store.balance(account)).balance).toBe(6);
    const { transactions } = await store.history(account, 10);
    expect(transactions.map((t) => t.transaction_type)).toEqual(['purchase', 'grant']);
    // Held again after capture: the recorded hold answers, nothing more is taken.
    expect(await store.hold({ account, holdId: 'h1', credits: 4 })).toMatchObject({ ok: true });
    expect((await store.balance(account)).balance).toBe(6);
  });

  it('the hold is the claim of its id: one of many racing holders is fresh; holdState and the settling entry carry the outcome, never shown to clients', async () => {
    const account = acct('f');
    await store.grant({ wallet: account, credits: 10, creditType: 'admin_grant' });
    expect(await store.holdState(account, 'claim-1')).toEqual({ state: 'none' });
    const other = new LedgerStore(db.models);
    const racers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 ? other : store).hold({ account, holdId: 'claim-1', credits: 2, attempt: 1 }),
      ),
    );
    expect(racers.filter((r) => r.ok && r.fresh)).toHaveLength(1);
    expect(racers.every((r) => r.ok && r.hold.credits === 2)).toBe(true);
    expect((await store.balance(account)).balance).toBe(8);
    expect(await other.holdState(account, 'claim-1')).toMatchObject({
      state: 'open',
      hold: { hold_id: 'claim-1', credits: 2, attempt: 1 },
    });

    await other.capture({ account, holdId: 'claim-1', outcome: '{"status":"succeeded","answer":42}' });
    expect(await store.holdState(account, 'claim-1')).toEqual({
      state: 'captured',
      transactionId: `purchase:${account}:claim-1`,
      credits: 2,
      outcome: '{"status":"succeeded","answer":42}',
      // When the capture was written: a receipt of it is issued at this time.
      recordedAt: expect.any(Date),
    });
    // Held again after the capture: not fresh, nothing more taken.
    expect(await store.hold({ account, holdId: 'claim-1', credits: 2 })).toMatchObject({ ok: true, fresh: false });
    expect((await store.balance(account)).balance).toBe(8);

    await store.hold({ account, holdId: 'claim-2', credits: 3 });
    expect(
      await store.release({ account, holdId: 'claim-2', reason: 'vendor_error', outcome: '{"status":"failed"}' }),
    ).toEqual({ released: true });
    expect(await other.holdState(account, 'claim-2')).toMatchObject({
      state: 'released',
      credits: 3,
      outcome: '{"status":"failed"}',
    });
    // A later release or capture changes nothing, the outcome first written stands.
    expect(await store.release({ account, holdId: 'claim-2', outcome: '{"status":"other"}' })).toEqual({
      released: false,
    });
    await expect(
      store.capture({ account, holdId: 'claim-2', outcome: '{"status":"succeeded"}' }),
    ).rejects.toMatchObject({ code: 'hold_not_open' });
    expect(await store.holdState(account, 'claim-2')).toMatchObject({ outcome: '{"status":"failed"}' });
    expect((await store.balance(account)).balance).toBe(8);
    const { transactions } = await store.history(account, 10);
    expect(transactions.map((t) => t.transaction_type)).toEqual(['purchase', 'grant']);
    expect(JSON.stringify(transactions)).not.toContain('answer');
  });

  it('release gives the credits back to the grants they came from, once; capture after release is refused', async () => {
    const account = acct('b');
    await store.grant({
      wallet: account,
      grantId: 'g-soon',
      credits: 3,
      creditType: 'admin_grant',
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    await store.grant({ wallet: account, grantId: 'g-never', credits: 5, creditType: 'admin_grant' });
    expect(await store.hold({ account, holdId: 'h', credits: 5 })).toMatchObject({ ok: true });
    expect((await store.balance(account)).balance).toBe(3);
    const rs = await Promise.all([1, 2, 3].map(() => store.release({ account, holdId: 'h', reason: 'vendor_error' })));
    expect(rs.filter((r) => r.released)).toHaveLength(1);
    expect((await store.balance(account)).balance).toBe(8);
    const { grants, transactions } = await store.history(account, 10);
    expect(Object.fromEntries(grants.map((g) => [g._id, g.remaining_credits]))).toEqual({ 'g-soon': 3, 'g-never': 5 });
    expect(transactions.map((t) => t.transaction_type)).toEqual(['grant', 'grant']);
    await expect(store.capture({ account, holdId: 'h' })).rejects.toMatchObject({ code: 'hold_not_open' });
    await expect(store.capture({ account, holdId: 'never' })).rejects.toMatchObject({ code: 'hold_not_found' });
  });

  it('50 concurrent holds of 1 over a balance of 20: exactly 20 held, capture and release race per hold, never below zero', async () => {
    const account = acct('c');
    await store.grant({ wallet: account, credits: 20, creditType: 'admin_grant' });
    const holds = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.hold({ account, holdId: `r${i}`, credits: 1 })),
    );
    expect(holds.filter((h) => h.ok)).toHaveLength(20);
    expect(holds.filter((h) => !h.ok)).toHaveLength(30);
    expect((await store.balance(account)).balance).toBe(0);
    const ids = holds.map((h, i) => (h.ok ? `r${i}` : null)).filter((x): x is string => x !== null);
    await Promise.all(ids.map((holdId) => store.capture({ account, holdId })));
    const { transactions } = await store.history(account, 100);
    expect(transactions.filter((t) => t.transaction_type === 'purchase')).toHaveLength(20);
    expect((await store.balance(account)).balance).toBe(0);
  });

  it("two API processes (two stores with their own cached heads) see each other's holds and grants", async () => {
    const account = acct('e');
    const other = new LedgerStore(db.models);
    await store.grant({ wallet: account, credits: 3, creditType: 'admin_grant' });
    expect(await store.hold({ account, holdId: 'x', credits: 3 })).toMatchObject({ ok: true });
    // The other process captures a hold this one made, then this one is refused on its stale view no more.
    expect((await other.capture({ account, holdId: 'x' })).replayed).toBe(false);
    await other.grant({ wallet: account, credits: 4, creditType: 'admin_grant' });
    expect(await other.hold({ account, holdId: 'y', credits: 4 })).toMatchObject({ ok: true });
    expect((await store.capture({ account, holdId: 'y' })).transaction).toMatchObject({
      amount_credits: -4,
      balance_after_credits: 0,
    });
    await other.grant({ wallet: account, credits: 2, creditType: 'admin_grant' });
    expect(await store.hold({ account, holdId: 'z', credits: 2 })).toMatchObject({ ok: true });
  });

  it('staleHolds lists open holds older than the cut-off until they are settled', async () => {
    const account = acct('d');
    await store.grant({ wallet: account, credits: 5, creditType: 'admin_grant' });
    const old = new Date(Date.now() - 3_600_000);
    await store.hold({ account, holdId: 'old', credits: 1, now: old });
    await store.hold({ account, holdId: 'new', credits: 1 });
    const stale = await store.staleHolds(new Date(Date.now() - 60_000), 10);
    expect(stale.filter((s) => s.account === account).map((s) => s.holdId)).toEqual(['old']);
    await store.release({ account, holdId: 'old' });
    expect((await store.staleHolds(new Date(Date.now() - 60_000), 10)).filter((s) => s.account === account)).toEqual(
      [],
    );
    expect(await store.hold({ account, holdId: 'big', credits: 100 })).toEqual({ ok: false, balance: 4 });
    expect(
      (await store.staleHolds(new Date(Date.now() + 60_000), 10))
        .filter((s) => s.account === account)
        .map((s) => s.holdId),
    ).toEqual(['new']);
  });

  it('the healer reads the ledger past a watermark: it moves over settled minutes, stops at an open hold, never past the scan lag', async () => {
    // The file's database holds other tests' holds (at the clock, or settled): filtered by account.
    await db.models.ledgerWatermarks.deleteMany({});
    const ledger = new LedgerStore(db.models);
    const account = acct('7');
    const mine = (holds: Array<{ account: string; holdId: string }>) =>
      holds.filter((h) => h.account === account).map((h) => h.holdId);
    const now = new Date();
    const ago = (min: number) => new Date(now.getTime() - min * 60_000);
    const minute = (at: Date) => new Date(Math.floor(at.getTime() / 60_000) * 60_000);
    await ledger.grant({ wallet: account, credits: 10, creditType: 'admin_grant', now: ago(40) });
    await ledger.hold({ account, holdId: 'captured', credits: 1, now: ago(30) });
    await ledger.capture({ account, holdId: 'captured', now: ago(30) });
    await ledger.hold({ account, holdId: 'crashed', credits: 2, now: ago(20) });
    await ledger.hold({ account, holdId: 'released', credits: 3, now: ago(10) });
    await ledger.release({ account, holdId: 'released', now: ago(10) });
    await ledger.hold({ account, holdId: 'in-flight', credits: 1, now: ago(1) });
    expect(await ledger.openHoldsWatermark()).toBeNull();

    // Only the open hold before the cut-off; the watermark moves up to its minute and stops there.
    expect(mine(await ledger.staleHolds(ago(6), 10, now))).toEqual(['crashed']);
    expect(await ledger.openHoldsWatermark()).toEqual(minute(ago(20)));

    // Healed (released): the next scan finds nothing and moves on to the cut-off's minute.
    expect(await ledger.release({ account, holdId: 'crashed', reason: 'stale hold healed' })).toEqual({
      released: true,
    });
    expect(mine(await ledger.staleHolds(ago(6), 10, now))).toEqual([]);
    expect(await ledger.openHoldsWatermark()).toEqual(minute(ago(6)));

    // A cut-off at the clock: the in-flight hold is listed, but the watermark stays behind the scan lag.
    expect(mine(await ledger.staleHolds(now, 10, now))).toEqual(['in-flight']);
    expect(await ledger.openHoldsWatermark()).toEqual(minute(ago(5)));

    // The captured hold was never listed and is still the one purchase; the crashed one cost nothing.
    const { transactions } = await ledger.history(account, 20);
    expect(transactions.filter((t) => t.transaction_type === 'purchase').map((t) => t.amount_credits)).toEqual([-1]);
    expect((await ledger.balance(account)).balance).toBe(8);

    // A healer far behind (it was down) catches up over several scans of at most 120 minutes each.
    await db.models.ledgerWatermarks.updateOne({ _id: 'open-holds' }, { $set: { at: minute(ago(300)) } });
    expect(mine(await ledger.staleHolds(ago(6), 10, now))).toEqual([]);
    expect(await ledger.openHoldsWatermark()).toEqual(new Date(minute(ago(300)).getTime() + 120 * 60_000));
  });
});
