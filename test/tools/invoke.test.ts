import { LedgerStore } from '../../shared/credits/ledger-store';
import { healHold } from '../../shared/tools/holds';
import { createToolInvoker, paramsDigest } from '../../shared/tools/invoke';
import { ToolRepository } from '../../shared/tools/repository';
import { vendorRequestId } from '../../shared/tools/vendor';
import { invokeWithinWalletBudget } from '../../shared/tools/wallet-budget';
import { openTestDb } from '../support/db';
import { startScriptedVendor } from '../support/vendor';

const KEY = Buffer.alloc(32, 7);

describe('tool invoker on the real store with a real HTTP vendor', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let repo: ToolRepository;
  let ledger: LedgerStore;
  let invoker: ReturnType<typeof createToolInvoker>;

  beforeAll(async () => {
    db = await openTestDb();
    vendor = await startScriptedVendor(() => ({ status: 200, body: { ok: true } }));
    repo = new ToolRepository(db.models);
    ledger = new LedgerStore(db.models);
    invoker = createToolInvoker({ secretKey: KEY, repository: repo, ledger });
    await repo.setSecret('vendor-key', 's3cret-vendor-key', KEY);
    await repo.createProduct({ slug: 'words', name: 'words', description: 'Counts words' });
    await repo.addAction('words', {
      slug: 'count',
      credits: 3,
      parameters_schema: {
        type: 'object',
        properties: { text: { type: 'string', maxLength: 100 } },
        required: ['text'],
        additionalProperties: false,
      },
      runner: { kind: 'http', url: `${vendor.url}/count`, method: 'POST', timeout_ms: 10_000, secret: 'vendor-key' },
    });
    // The same action with a tight bound, for the timeout case only: on a loaded machine (the whole
    // suite on two cores) 300 ms can run out for a vendor that answers at once, so calls that must
    // succeed use the patient product above.
    await repo.createProduct({ slug: 'words-hasty', name: 'words_hasty', description: 'Counts words, gives up fast' });
    await repo.addAction('words-hasty', {
      slug: 'count',
      credits: 3,
      parameters_schema: {
        type: 'object',
        properties: { text: { type: 'string', maxLength: 100 } },
        required: ['text'],
        additionalProperties: false,
      },
      runner: { kind: 'http', url: `${vendor.url}/count`, method: 'POST', timeout_ms: 300, secret: 'vendor-key' },
    });
    await repo.createProduct({ slug: 'multi', name: 'multi' });
    for (const slug of ['a', 'b'])
      await repo.addAction('multi', {
        slug,
        credits: 1,
        runner: { kind: 'builtin', handler: 'echo', timeout_ms: 1000 },
      });
  });
  afterAll(async () => {
    await vendor.stop();
    await db.drop();
  });

  const wallet = (c: string) => '0x' + c.repeat(40);
  const balance = async (w: string) => (await ledger.balance(w)).balance;
  const purchases = async (w: string) =>
    (await ledger.history(w, 100)).transactions.filter((t) => t.transaction_type === 'purchase');

  it('a vendor that fails, times out, then succeeds: charged once, only for the success; the secret never shows', async () => {
    const w = wallet('1');
    await ledger.grant({ wallet: w, credits: 10, creditType: 'admin_grant' });
    vendor.set(() => ({ status: 500, body: { error: 'boom', echoed_key: 's3cret-vendor-key' } }));
    const fail = await invoker
      .invoke({ account: w, product: { slug: 'words' }, parameters: { text: 'hi' }, requestId: 'r1' })
      .catch((e) => e);
    expect(fail).toMatchObject({ code: 'vendor_error', status: 502, details: { vendor_status: 500 } });
    expect(JSON.stringify(fail.details)).not.toContain('s3cret-vendor-key');
    expect(await balance(w)).toBe(10);

    vendor.set(() => ({ status: 200, body: { late: true }, delayMs: 1000 }));
    const slow = await invoker
      .invoke({ account: w, product: { slug: 'words-hasty' }, parameters: { text: 'hi' }, requestId: 'r2' })
      .catch((e) => e);
    expect(slow).toMatchObject({ code: 'vendor_timeout', status: 504 });
    expect(await balance(w)).toBe(10);

    vendor.set((call) => ({ status: 200, body: { words: 1, auth: call.headers.authorization } }));
    const ok = await invoker.invoke({
      account: w,
      product: { slug: 'words' },
      parameters: { text: 'hi' },
      requestId: 'r3',
      meta: { run: 'x' },
    });
    expect(ok).toMatchObject({
      response: { words: 1, auth: 'Bearer s3cret-vendor-key' },
      credits_charged: 3,
      action_slug: 'count',
    });
    expect(await balance(w)).toBe(7);
    // The same request id again: the recorded answer, no second charge, no second vendor call.
    const calls = vendor.calls.length;
    const again = await invoker.invoke({
      account: w,
      product: { slug: 'words' },
      parameters: { text: 'hi' },
      requestId: 'r3',
    });
    expect(again.transaction_id).toBe(ok.transaction_id);
    expect(vendor.calls.length).toBe(calls);
    expect(await balance(w)).toBe(7);
    const spent = await purchases(w);
    expect(spent).toHaveLength(1);
    expect(JSON.parse(spent[0]!.details!)).toMatchObject({ product: 'words', action: 'count', meta: { run: 'x' } });
  });

  it('hostile or wrong parameters are refused before any money moves or any vendor call', async () => {
    const w = wallet('2');
    await ledger.grant({ wallet: w, credits: 10, creditType: 'admin_grant' });
    const calls = vendor.calls.length;
    const deep: Record<string, unknown> = {};
    let cur = deep;
    for (let i = 0; i < 40; i++) cur = (cur.n = {}) as Record<string, unknown>;
    const hostile: unknown[] = [
      { text: 'x'.repeat(101) },
      { text: 'ok', extra: 1 },
      JSON.parse('{"text":"ok","__proto__":{"polluted":true}}'),
      { text: 'y'.repeat(70_000) },
      deep,
      {},
    ];
    for (const [i, parameters] of hostile.entries()) {
      await expect(
        invoker.invoke({
          account: w,
          product: { slug: 'words' },
          parameters: parameters as Record<string, unknown>,
          requestId: `h${i}`,
        }),
      ).rejects.toMatchObject({
        code: 'invalid_parameters',
        status: 400,
      });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(vendor.calls.length).toBe(calls);
    expect(await balance(w)).toBe(10);
    expect(await ledger.staleHolds(new Date(Date.now() + 60_000), 100)).toEqual([]);
  });

  it('refusals: unknown product and action, ambiguous action, insufficient credits, a budget gate; none charge', async () => {
    const w = wallet('3');
    await ledger.grant({ wallet: w, credits: 2, creditType: 'admin_grant' });
    await expect(
      invoker.invoke({ account: w, product: { slug: 'nope' }, parameters: {}, requestId: 'a' }),
    ).rejects.toMatchObject({ code: 'product_not_found' });
    await expect(
      invoker.invoke({ account: w, product: { slug: 'words' }, actionSlug: 'nope', parameters: {}, requestId: 'b' }),
    ).rejects.toMatchObject({ code: 'action_not_found' });
    await expect(
      invoker.invoke({ account: w, product: { slug: 'multi' }, parameters: {}, requestId: 'c' }),
    ).rejects.toMatchObject({ code: 'action_ambiguous', status: 409 });
    await expect(
      invoker.invoke({ account: w, product: { slug: 'words' }, parameters: { text: 'a' }, requestId: 'd' }),
    ).rejects.toMatchObject({
      code: 'insufficient_credits',
      details: { balance: 2, credits_required: 3 },
    });
    const gate = async () => {
      throw Object.assign(new Error('over'), { code: 'budget_exceeded' });
    };
    await expect(
      invoker.invoke({
        account: w,
        product: { slug: 'multi' },
        actionSlug: 'a',
        parameters: {},
        requestId: 'e',
        authorize: gate,
      }),
    ).rejects.toMatchObject({ code: 'budget_exceeded' });
    // After a refusal for credits the same request id may try again once funded.
    await ledger.grant({ wallet: w, credits: 5, creditType: 'admin_grant' });
    vendor.set(() => ({ status: 200, body: { words: 1 } }));
    await expect(
      invoker.invoke({ account: w, product: { slug: 'words' }, parameters: { text: 'a' }, requestId: 'd' }),
    ).resolves.toMatchObject({ credits_charged: 3 });
    expect(await balance(w)).toBe(4);
  });

  it('50 concurrent invokes over a balance for 20: exactly 20 captured, 30 refused, never below zero', async () => {
    const w = wallet('4');
    await ledger.grant({ wallet: w, credits: 20, creditType: 'admin_grant' });
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        invoker.invoke({
          account: w,
          product: { slug: 'multi' },
          actionSlug: 'b',
          parameters: { i },
          requestId: `c${i}`,
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(20);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused.map((r) => r.reason.code)).toEqual(Array(30).fill('insufficient_credits'));
    expect(await balance(w)).toBe(0);
    expect(await purchases(w)).toHaveLength(20);
  });

  it('concurrent calls with one request id: one vendor call, one charge; the others are in progress or get the recorded answer', async () => {
    const w = wallet('a');
    await ledger.grant({ wallet: w, credits: 10, creditType: 'admin_grant' });
    vendor.set(() => ({ status: 200, body: { words: 4 }, delayMs: 200 }));
    const before = vendor.calls.length;
    const call = () =>
      invoker
        .invoke({
          account: w,
          product: { slug: 'words' },
          parameters: { text: 'one two three four' },
          requestId: 'same',
        })
        .then(
          (r) => ({ ok: r }),
          (e) => ({ err: e }),
        );
    const results = await Promise.all(Array.from({ length: 6 }, call));
    const ok = results.filter((r): r is { ok: Awaited<ReturnType<typeof invoker.invoke>> } => 'ok' in r);
    // On failure, say what each call got.
    expect({
      ok: ok.length >= 1,
      outcomes: results.map((r) => ('ok' in r ? 'ok' : (r.err as { code?: string }).code)),
    }).toMatchObject({ ok: true });
    for (const r of ok) expect(r.ok).toMatchObject({ response: { words: 4 }, credits_charged: 3 });
    for (const r of results.filter((x) => 'err' in x))
      expect((r as { err: { code: string } }).err.code).toBe('invocation_in_progress');
    expect(vendor.calls.length - before).toBe(1);
    expect(await balance(w)).toBe(7);
    expect(await purchases(w)).toHaveLength(1);
    // Afterwards the recorded answer, with the same transaction id; still one vendor call.
    expect(await call()).toMatchObject({
      ok: { response: { words: 4 }, credits_charged: 3, transaction_id: `purchase:${w}:same` },
    });
    expect(vendor.calls.length - before).toBe(1);
  });

  it('an aborted call (run cancellation) costs nothing', async () => {
    const w = wallet('5');
    await ledger.grant({ wallet: w, credits: 5, creditType: 'admin_grant' });
    vendor.set(() => ({ status: 200, body: { late: true }, delayMs: 250 }));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await expect(
      invoker.invoke({
        account: w,
        product: { slug: 'words' },
        parameters: { text: 'a' },
        requestId: 'x',
        signal: ac.signal,
      }),
    ).rejects.toMatchObject({ code: 'vendor_timeout' });
    expect(await balance(w)).toBe(5);
  });

  it('a later worker attempt takes over a call its dead attempt left pending: same hold, charged once; only one taker per attempt', async () => {
    const w = wallet('7');
    await ledger.grant({ wallet: w, credits: 10, creditType: 'admin_grant' });
    const product = (await repo.getProduct({ slug: 'words' }))!;
    // What a worker killed during the vendor call leaves: the open hold of attempt 1 (the hold is the claim).
    await ledger.hold({
      account: w,
      holdId: 'run:r:n',
      credits: 3,
      attempt: 1,
      details: { product_id: product.id, action: 'count' },
    });
    expect(await balance(w)).toBe(7);

    const call = (attempt?: number) =>
      invoker.invoke({
        account: w,
        product: { slug: 'words' },
        parameters: { text: 'hi' },
        requestId: 'run:r:n',
        ...(attempt !== undefined ? { attempt } : {}),
      });
    // Not a later attempt (or no attempt at all: an API request): still in progress.
    expect(await call().catch((e) => e)).toMatchObject({ code: 'invocation_in_progress', status: 409 });
    expect(await call(1).catch((e) => e)).toMatchObject({ code: 'invocation_in_progress', status: 409 });

    vendor.set((c) => ({ status: 200, body: { words: 1, key: c.headers['idempotency-key'] }, delayMs: 100 }));
    const before = vendor.calls.length;
    const twins = await Promise.all(
      [call(2), call(2), call(2)].map((p) =>
        p.then(
          (r) => ({ ok: r }),
          (e) => ({ err: e }),
        ),
      ),
    );
    const won = twins.filter((t): t is { ok: Awaited<ReturnType<typeof call>> } => 'ok' in t);
    // On failure, say what each twin got.
    const outcomes = twins.map((t) =>
      'ok' in t ? 'ok' : ((t.err as { code?: string; message?: string }).code ?? String((t.err as Error).message)),
    );
    expect(outcomes.sort()).toEqual(['invocation_in_progress', 'invocation_in_progress', 'ok']);
    // The vendor sees the same idempotency key as the dead attempt would have sent.
    expect(won[0]!.ok).toMatchObject({
      response: { words: 1, key: vendorRequestId(w, 'run:r:n') },
      credits_charged: 3,
    });
    expect(vendor.calls.length - before).toBe(1);
    expect(await balance(w)).toBe(7);
    const entries = (await db.models.creditTransactions.find({ user_id: w }).lean().exec())
      .map((e) => e.transaction_type)
      .sort();
    expect(entries).toEqual(['grant', 'hold', 'purchase', 'takeover']);
    expect(await invoker.record(w, 'run:r:n')).toMatchObject({ status: 'succeeded', attempt: 2, credits: 3 });
    // A still later attempt now gets the recorded answer: no vendor call, no charge.
    expect(await call(3)).toMatchObject({ response: { words: 1 }, credits_charged: 3 });
    expect(vendor.calls.length - before).toBe(1);
    expect(await purchases(w)).toHaveLength(1);
  });

  it('a copy of a request that finds its hold taken leaves the daily-cap reservation of that request id to the holder', async () => {
    const w = wallet('c');
    await ledger.grant({ wallet: w, credits: 20, creditType: 'admin_grant' });
    await repo.setBudget(w, { per_call_credits: null, daily_credits: 10 }, 'wallet');
    const product = (await repo.getProduct({ slug: 'words' }))!;
    // Another copy of the request got the hold first; it counts on the day's reservation of this request id.
    await ledger.hold({ account: w, holdId: 'dup', credits: 3, details: { product_id: product.id, action: 'count' } });
    const copy = { account: w, product: { slug: 'words' }, parameters: { text: 'a' }, requestId: 'dup' };
    await expect(invokeWithinWalletBudget(invoker, copy)).rejects.toMatchObject({ code: 'invocation_in_progress' });
    expect(await db.models.walletSpends.countDocuments({ _id: `${w}|dup` })).toBe(1);
    // Once that call failed (released, nothing charged), a later copy's reservation counts nothing: it is dropped.
    await ledger.release({ account: w, holdId: 'dup', reason: 'vendor_error' });
    await db.models.walletSpends.deleteOne({ _id: `${w}|dup` });
    await expect(invokeWithinWalletBudget(invoker, copy)).rejects.toMatchObject({ code: 'vendor_timeout' });
    expect(await db.models.walletSpends.countDocuments({ _id: `${w}|dup` })).toBe(0);
  });

  it("a worker attempt never takes over an API request's hold (it has no attempt): its caller is alive", async () => {
    const w = wallet('d');
    await ledger.grant({ wallet: w, credits: 10, creditType: 'admin_grant' });
    const product = (await repo.getProduct({ slug: 'words' }))!;
    await ledger.hold({
      account: w,
      holdId: 'session:s:n',
      credits: 3,
      details: { product_id: product.id, action: 'count', params_sha256: paramsDigest({ text: 'a' }) },
    });
    const before = vendor.calls.length;
    await expect(
      invoker.invoke({
        account: w,
        product: { slug: 'words' },
        parameters: { text: 'a' },
        requestId: 'session:s:n',
        attempt: 1,
      }),
    ).rejects.toMatchObject({ code: 'invocation_in_progress' });
    expect(vendor.calls.length).toBe(before);
    expect(await invoker.record(w, 'session:s:n')).toMatchObject({ status: 'pending' });
  });

  it('two takeovers of the same attempt: the ledger lets exactly one proceed, across processes; none of a settled hold', async () => {
    const w = wallet('8');
    await ledger.grant({ wallet: w, credits: 10, creditType: 'admin_grant' });
    await ledger.hold({ account: w, holdId: 'run:t:n', credits: 3, attempt: 1 });
    const other = new LedgerStore(db.models);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? other : ledger).takeOver({ account: w, holdId: 'run:t:n', attempt: 2 }),
      ),
    );
    expect(results.filter((r) => r === 'taken')).toHaveLength(1);
    expect(results.filter((r) => r === 'lost')).toHaveLength(7);
    expect(await invoker.record(w, 'run:t:n')).toMatchObject({ status: 'pending', attempt: 2 });
    // An earlier attempt never takes it back; the next attempt is a new decision, again for one taker.
    expect(await ledger.takeOver({ account: w, holdId: 'run:t:n', attempt: 2 })).toBe('lost');
    const third = await Promise.all([
      ledger.takeOver({ account: w, holdId: 'run:t:n', attempt: 3 }),
      other.takeOver({ account: w, holdId: 'run:t:n', attempt: 3 }),
    ]);
    expect(third.filter((r) => r === 'taken')).toHaveLength(1);
    expect(await balance(w)).toBe(7);
    await ledger.release({ account: w, holdId: 'run:t:n' });
    expect(await ledger.takeOver({ account: w, holdId: 'run:t:n', attempt: 4 })).toBe('settled');
    expect(await balance(w)).toBe(10);
  });

  it('a call settled before outcomes moved onto the ledger answers from its old tool_invocations record, without the vendor', async () => {
    const w = wallet('b');
    await ledger.grant({ wallet: w, credits: 10, creditType: 'admin_grant' });
    const product = (await repo.getProduct({ slug: 'words' }))!;
    // What the code before 2026-11-24 left: the claim, its outcome document, a capture with no outcome.
    await ledger.hold({
      account: w,
      holdId: 'old-1',
      credits: 3,
      details: { product_id: product.id, product: 'words', action: 'count' },
    });
    await ledger.capture({ account: w, holdId: 'old-1' });
    const now = new Date();
    await db.models.toolInvocations.collection.insertOne({
      _id: `${w}|old-1`,
      account: w,
      request_id: 'old-1',
      hold_id: 'old-1',
      product_id: product.id,
      action_slug: 'count',
      credits: 3,
      status: 'pending',
      created_at: now,
      updated_at: now,
    } as never);
    await db.models.toolInvocationOutcomes.collection.insertOne({
      _id: `${w}|old-1`,
      status: 'succeeded',
      response_json: '{"words":9}',
      transaction_id: `purchase:${w}:old-1`,
      created_at: now,
    } as never);
    const before = vendor.calls.length;
    expect(
      await invoker.invoke({ account: w, product: { slug: 'words' }, parameters: { text: 'hi' }, requestId: 'old-1' }),
    ).toMatchObject({
      response: { words: 9 },
      credits_charged: 3,
      transaction_id: `purchase:${w}:old-1`,
    });
    expect(vendor.calls.length).toBe(before);
    expect(await balance(w)).toBe(7);
  });

  it('the healer settling a call still in flight decides its outcome first: the late success is answered uncharged, never captured', async () => {
    const w = wallet('9');
    await ledger.grant({ wallet: w, credits: 10, creditType: 'admin_grant' });
    await repo.createProduct({ slug: 'patient', name: 'patient' });
    await repo.addAction('patient', {
      slug: 'run',
      credits: 3,
      runner: { kind: 'http', url: `${vendor.url}/run`, method: 'POST', timeout_ms: 30_000 },
    });
    let healed: Promise<unknown> | undefined;
    vendor.set(async () => {
      // While the vendor works, the healer takes the hold for one a crash left behind.
      healed = healHold(ledger, w, 'late-1');
      await healed;
      return { status: 200, body: { words: 2 } };
    });
    const out = await invoker.invoke({ account: w, product: { slug: 'patient' }, parameters: {}, requestId: 'late-1' });
    expect(await healed).toBe('released');
    expect(out).toMatchObject({
      response: { words: 2 },
      credits_charged: 0,
      warnings: [expect.objectContaining({ code: 'not_charged' })],
    });
    expect(await balance(w)).toBe(10);
    expect(await purchases(w)).toHaveLength(0);
    // The outcome the healer recorded stands: a retry of the request id answers it, free.
    expect(await invoker.record(w, 'late-1')).toMatchObject({ status: 'failed', error_code: 'vendor_timeout' });
    expect(
      await invoker
        .invoke({ account: w, product: { slug: 'patient' }, parameters: {}, requestId: 'late-1' })
        .catch((e) => e),
    ).toMatchObject({ code: 'vendor_timeout' });
    expect(await balance(w)).toBe(10);
  });
});
