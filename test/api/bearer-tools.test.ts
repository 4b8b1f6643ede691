import { LedgerStore } from '../../shared/credits/ledger-store';
import { AccessTokenService } from '../../shared/identity/access-tokens';
import { ToolRepository } from '../../shared/tools/repository';
import { http } from '../support/http';
import { startTestStack, TestStack } from '../support/stack';
import { startScriptedVendor } from '../support/vendor';

describe('bearer catalog on {api_url}: fetch, purchase, issue reports', () => {
  let stack: TestStack;
  let repo: ToolRepository;
  let ledger: LedgerStore;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let auth: Record<string, string>;
  let wallet: string;
  let statsId: string;
  const api = (p: string) => `${stack.server.apiUrl}${p}`;

  beforeAll(async () => {
    stack = await startTestStack();
    repo = new ToolRepository(stack.db.models);
    ledger = new LedgerStore(stack.db.models);
    vendor = await startScriptedVendor((call) => {
      const b = call.body as { action: string; parameters: Record<string, unknown> };
      if (b.parameters.fail) return { status: 500, body: { error: 'vendor broke' } };
      return { status: 200, body: { result: { action: b.action, echoed: b.parameters } } };
    });
    await repo.insertProducts(
      Array.from({ length: 45 }, (_, i) => ({
        slug: `p-${String(i).padStart(2, '0')}`,
        name: `p_${String(i).padStart(2, '0')}`,
        description: 'filler',
      })),
    );
    const p = await repo.createProduct({
      slug: 'stats',
      name: 'stats',
      display_name: 'Stats Tool',
      description: 'Two actions',
      extra: { homepage: 'https://example.com' },
    });
    statsId = p.id;
    for (const slug of ['count', 'mean']) {
      await repo.addAction('stats', {
        slug,
        credits: 4,
        parameters_schema: {
          type: 'object',
          properties: { values: { type: 'array', items: { type: 'number' } }, fail: { type: 'boolean' } },
          additionalProperties: false,
        },
        runner: { kind: 'http', url: `${vendor.url}/${slug}`, method: 'POST', timeout_ms: 20_000 },
      });
    }
    wallet = '0x' + 'be'.repeat(20);
    const token = await new AccessTokenService(stack.db.models).issue({ wallet, createdBy: 'operator' as never });
    auth = { authorization: `Bearer ${token.access_token}` };
    await ledger.grant({ wallet, credits: 10, creditType: 'admin_grant' });
  });
  afterAll(async () => {
    await vendor.stop();
    await stack.stop();
  });

  it('GET /products/fetch pages from the query or X-Page headers, says which, keeps the instance id', async () => {
    const first = await http('GET', api('/products/fetch'), { headers: auth });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual([
      'details',
      'example_tool_call',
      'instance_id',
      'pagination',
      'preprompt',
      'success',
      'tools',
    ]);
    expect(first.body.details).toEqual({
      tools_on_this_page: 20,
      total_qualified_tools: 46,
      page_returned: 1,
      page_size_requested: 20,
      page_source: 'query',
      page_size_source: 'query',
      total_pages: 3,
      has_next_page: true,
      has_previous_page: false,
    });
    expect(first.body.pagination).toEqual({
      page: 1,
      page_size: 20,
      total_count: 46,
      total_pages: 3,
      has_next: true,
      has_prev: false,
    });
    expect(first.body.instance_id).toMatch(/^inst_/);
    expect(first.body.example_tool_call).toContain('/products/purchase');
    const byHeader = await http('GET', api('/products/fetch'), {
      headers: {
        ...auth,
        'X-Page': '3',
        'X-Page-Size': '20',
        'x-instance-id': first.body.instance_id,
        'x-instance-metadata': '{"agent":"t"}',
      },
    });
    expect(byHeader.body.instance_id).toBe(first.body.instance_id);
    expect(byHeader.body.details).toMatchObject({
      page_source: 'header',
      page_size_source: 'header',
      tools_on_this_page: 6,
      has_next_page: false,
      has_previous_page: true,
    });
    const mixed = await http('GET', api('/products/fetch?page=2'), {
      headers: { ...auth, 'X-Page': '3', 'X-Page-Size': '50' },
    });
    expect(mixed.body.details).toMatchObject({
      page_returned: 2,
      page_source: 'query',
      page_size_source: 'header',
      page_size_requested: 50,
    });
    const stats = (await http('GET', api('/products/fetch?page_size=100'), { headers: auth })).body.tools.find(
      (t: any) => t.name === 'stats',
    );
    expect(stats).toMatchObject({
      product_id: statsId,
      name: 'stats',
      display_name: 'Stats Tool',
      description: 'Two actions',
      homepage: 'https://example.com',
    });
  });

  it('refuses a page size over 100, a bad X-Page, metadata that is not JSON, and a missing bearer', async () => {
    expect((await http('GET', api('/products/fetch?page_size=101'), { headers: auth })).status).toBe(422);
    // An empty value is not a number: refused, as an empty X-Page is (the fuzzer's `page_size=` was read as absent, size 20).
    for (const [query, field] of [
      ['page=1000&page_size=', 'page_size'],
      ['page=', 'page'],
      ['page_size=', 'page_size'],
      ['size=', 'page_size'],
      ['page=1.5', 'page'],
      // Number() read this as 16; the document's integer does not.
      ['page_size=0x10', 'page_size'],
    ]) {
      const empty = await http('GET', api(`/products/fetch?${query}`), { headers: { ...auth, 'X-Page-Size': '5' } });
      expect([query, empty.status, empty.body.detail?.[0]?.loc]).toEqual([query, 422, ['query', field]]);
    }
    // The query wins, but a header beside it must still be valid (found by the fuzzer: X-Page-Size 101 was ignored).
    const overHeader = await http('GET', api('/products/fetch?page_size=1'), {
      headers: { ...auth, 'X-Page-Size': '101' },
    });
    expect([overHeader.status, overHeader.body.detail?.[0]?.loc]).toEqual([422, ['header', 'x-page-size']]);
    const emptyHeader = await http('GET', api('/products/fetch'), { headers: { ...auth, 'X-Page': '' } });
    expect([emptyHeader.status, emptyHeader.body.detail?.[0]?.loc]).toEqual([422, ['header', 'x-page']]);
    const bad = await http('GET', api('/products/fetch'), { headers: { ...auth, 'X-Page': 'two' } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['header', 'x-page']);
    const meta = await http('GET', api('/products/fetch'), {
      headers: { ...auth, 'x-instance-metadata': '{not json' },
    });
    expect(meta.status).toBe(400);
    expect(meta.body).toMatchObject({
      error_code: 'invalid_instance_metadata',
      message: expect.stringContaining('JSON'),
    });
    expect((await http('GET', api('/products/fetch'))).status).toBe(401);
  });

  it('POST /products/purchase runs the named action for the token wallet through hold/capture and stores the order', async () => {
    const res = await http('POST', api('/products/purchase'), {
      body: { product_id: statsId, parameters: { action: 'mean', values: [1, 2] } },
      headers: { ...auth, 'x-instance-id': 'inst-abc' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { action: 'mean', echoed: { values: [1, 2] } },
      order_id: expect.stringMatching(/^ord_/),
      instance_id: 'inst-abc',
    });
    expect((await ledger.balance(wallet)).balance).toBe(6);
    const order = await stack.db.models.toolOrders.findById(res.body.order_id).lean().exec();
    expect(order).toMatchObject({ wallet, action_slug: 'mean', credits: 4, instance_id: 'inst-abc' });
    // An Idempotency-Key we cannot use is refused, not dropped (found by the fuzzer): a retry would be charged again.
    const badKey = await http('POST', api('/products/purchase'), {
      body: { product_id: statsId, parameters: { action: 'mean', values: [1] } },
      headers: { ...auth, 'idempotency-key': 'no spaces allowed' },
    });
    expect([badKey.status, badKey.body.detail?.[0]?.loc]).toEqual([422, ['header', 'idempotency-key']]);
    const failed = await http('POST', api('/products/purchase'), {
      body: { product_id: 'stats', parameters: { action: 'count', fail: true } },
      headers: auth,
    });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ error_code: 'vendor_error' });
    const ambiguous = await http('POST', api('/products/purchase'), {
      body: { product_id: statsId, parameters: {} },
      headers: auth,
    });
    expect(ambiguous.status).toBe(409);
    const poor = await http('POST', api('/products/purchase'), {
      body: { product_id: statsId, parameters: { action: 'count' } },
      headers: auth,
    });
    expect(poor.status).toBe(200);
    const broke = await http('POST', api('/products/purchase'), {
      body: { product_id: statsId, parameters: { action: 'count' } },
      headers: auth,
    });
    expect(broke.status).toBe(402);
    expect(broke.body.error_code).toBe('insufficient_credits');
    expect((await ledger.balance(wallet)).balance).toBe(2);
  });

  it('POST /products/purchase with an Idempotency-Key: one charge, one order, the same order_id on every replay, named by the ledger entry', async () => {
    await ledger.grant({ wallet, credits: 8, creditType: 'admin_grant' });
    const before = (await ledger.balance(wallet)).balance;
    const send = () =>
      http('POST', api('/products/purchase'), {
        body: { product_id: statsId, parameters: { action: 'mean', values: [3, 4] } },
        headers: { ...auth, 'x-instance-id': 'inst-idem', 'idempotency-key': 'order-once-1' },
      });
    const first = await send();
    expect(first.status).toBe(200);
    const replays = await Promise.all([send(), send()]);
    expect([...replays, await send()].map((r) => [r.status, r.body.order_id])).toEqual(
      Array(3).fill([200, first.body.order_id]),
    );
    expect((await ledger.balance(wallet)).balance).toBe(before - 4);
    const orders = await stack.db.models.toolOrders
      .find({ wallet, instance_id: 'inst-idem' })
      .lean<Array<{ _id: string; transaction_id: string }>>()
      .exec();
    expect(orders.map((o) => o._id)).toEqual([first.body.order_id]);
    const entries = await stack.db.models.creditTransactions
      .find({ user_id: wallet, op_id: orders[0]!.transaction_id })
      .lean<Array<Record<string, any>>>()
      .exec();
    expect(entries).toHaveLength(1);
    expect(JSON.stringify(entries[0])).toContain(first.body.order_id);
    // The public history names the order too: the agent can match its answer to its charge.
    const history = await http('GET', api('/credits/history?limit=50'), { headers: auth });
    const charge = history.body.data.transactions.find((t: any) => t._id === orders[0]!.transaction_id);
    expect(charge).toMatchObject({ transaction_type: 'purchase', amount_credits: -4, order_id: first.body.order_id });
    // The same key with other parameters names another call: refused, nothing charged.
    const other = await http('POST', api('/products/purchase'), {
      body: { product_id: statsId, parameters: { action: 'mean', values: [5] } },
      headers: { ...auth, 'x-instance-id': 'inst-idem', 'idempotency-key': 'order-once-1' },
    });
    expect([other.status, other.body.error_code]).toEqual([409, 'request_id_conflict']);
    expect((await ledger.balance(wallet)).balance).toBe(before - 4);
  });

  it('POST /issues/report resolves by object id, slug or exact name, and stores unknown products too', async () => {
    const cases: Array<[string, string, boolean]> = [
      [statsId, 'object_id', true],
      ['stats', 'slug', true],
      ['Stats Tool', 'exact_name', true],
      ['no-such-tool', 'not_found', false],
    ];
    for (const [ref, method, found] of cases) {
      const res = await http('POST', api('/issues/report'), {
        body: { product_id: ref, error_message: 'wrong answer', recommended_improvements: 'fix' },
        headers: { ...auth, 'x-instance-id': 'inst-1' },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        issue_id: expect.stringMatching(/^iss_/),
        product_found: found,
        lookup_method: method,
        product_id: ref,
        status: 'open',
      });
      if (found) expect(res.body.data.product_name).toBe('Stats Tool');
    }
    expect(await stack.db.models.issueReports.countDocuments({ wallet, status: 'open' })).toBe(4);
    expect((await http('POST', api('/issues/report'), { body: { product_id: 'x' }, headers: auth })).status).toBe(422);
  });

  it('POST /issues/report answers for private and inactive products exactly as for unknown ones', async () => {
    await repo.insertProducts([
      { slug: 'secret-tool', name: 'secret_tool', display_name: 'Secret Tool', description: 'hidden', private: true },
      { slug: 'old-tool', name: 'old_tool', display_name: 'Old Tool', description: 'retired', active: false },
    ]);
    const hiddenIds = await Promise.all(
      ['secret-tool', 'old-tool'].map(async (slug) => (await repo.getProduct({ slug }))!.id),
    );
    const answer = async (ref: string) => {
      const res = await http('POST', api('/issues/report'), {
        body: { product_id: ref, error_message: 'broken' },
        headers: auth,
      });
      expect(res.status).toBe(200);
      const { issue_id: _id, product_id: _ref, ...data } = res.body.data;
      return { message: res.body.message, data };
    };
    const unknown = await answer('no-such-product');
    expect(unknown.data).toEqual({ product_found: false, lookup_method: 'not_found', status: 'open' });
    for (const ref of ['secret-tool', 'Secret Tool', 'old-tool', 'Old Tool', ...hiddenIds]) {
      expect([ref, await answer(ref)]).toEqual([ref, unknown]);
    }
  });
});
