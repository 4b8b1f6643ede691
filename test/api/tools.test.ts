import { signToolInvoke, signToolInvokeById } from '../../sdk/agent-client';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { buildSignedMessage, signedPayload } from '../../shared/identity/signing';
import { ToolRepository } from '../../shared/tools/repository';
import { vendorRequestId } from '../../shared/tools/vendor';
import { TestAgent } from '../support/agent';
import { http } from '../support/http';
import { startTestStack, TestStack } from '../support/stack';
import { startScriptedVendor } from '../support/vendor';

describe('tools over HTTP: catalog listing and signed-credit invoke', () => {
  let stack: TestStack;
  let repo: ToolRepository;
  let ledger: LedgerStore;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let agent: TestAgent;
  let countId: string;
  const url = (p: string) => `${stack.server.mainUrl}/api/external${p}`;

  beforeAll(async () => {
    stack = await startTestStack();
    repo = new ToolRepository(stack.db.models);
    ledger = new LedgerStore(stack.db.models);
    vendor = await startScriptedVendor((call) => ({
      status: 200,
      body: { words: String((call.body as any)?.parameters?.text ?? '').split(' ').length },
    }));
    const listed = Array.from({ length: 23 }, (_, i) => ({
      slug: `filler-${String(i).padStart(2, '0')}`,
      name: `filler_${String(i).padStart(2, '0')}`,
      description: i % 2 ? 'Weather forecasts for any city' : 'Stock quotes',
      categories: [i % 2 ? 'weather' : 'finance'],
    }));
    await repo.insertProducts([
      ...listed,
      { slug: 'hidden', name: 'hidden', description: 'Weather secret', private: true },
      { slug: 'retired', name: 'retired', description: 'Weather old', active: false },
    ]);
    const p = await repo.createProduct({
      slug: 'words',
      name: 'word_counter',
      display_name: 'Word counter',
      description: 'Counts words in text',
      categories: ['text'],
      extra: { vendor: 'acme' },
    });
    countId = p.id;
    await repo.addAction('words', {
      slug: 'count',
      credits: 5,
      x402_usd: null,
      parameters_schema: {
        type: 'object',
        properties: { text: { type: 'string', maxLength: 200 } },
        required: ['text'],
        additionalProperties: false,
      },
      runner: { kind: 'http', url: `${vendor.url}/count`, method: 'POST', timeout_ms: 20_000 },
    });
    await repo.createProduct({ slug: 'twins', name: 'twins' });
    await repo.addAction('twins', {
      slug: 'one',
      name: 'Same',
      credits: 1,
      runner: { kind: 'builtin', handler: 'echo', timeout_ms: 1000 },
    });
    await repo.addAction('twins', {
      slug: 'two',
      name: 'same',
      credits: 1,
      runner: { kind: 'builtin', handler: 'echo', timeout_ms: 1000 },
    });
    agent = new TestAgent(stack.server.mainUrl);
    await agent.startSession();
  });
  afterAll(async () => {
    await vendor.stop();
    await stack.stop();
  });

  describe('GET /api/external/tools', () => {
    it('pages active public products with the eight-field descriptor; entries carry what a call needs', async () => {
      const res = await http('GET', url('/tools?page_size=10&page=3'));
      expect(res.status).toBe(200);
      expect(res.body.pagination).toEqual({
        page: 3,
        page_size: 10,
        total_count: 25,
        total_pages: 3,
        has_more: false,
        next_page: null,
        default_page_size: 100,
        max_page_size: 1000,
      });
      expect(res.body.tools).toHaveLength(5);
      const all = await http('GET', url('/tools'));
      expect(all.body.pagination).toMatchObject({ page: 1, page_size: 100, total_count: 25, has_more: false });
      expect(all.body.tools.map((t: any) => t.slug)).not.toEqual(expect.arrayContaining(['hidden', 'retired']));
      const words = all.body.tools.find((t: any) => t.slug === 'words');
      expect(words).toEqual({
        vendor: 'acme',
        product_id: countId,
        slug: 'words',
        name: 'word_counter',
        display_name: 'Word counter',
        description: 'Counts words in text',
        categories: ['text'],
        actions: [
          {
            slug: 'count',
            name: 'count',
            description: '',
            parameters_schema: expect.objectContaining({ required: ['text'] }),
            price_credits: 5,
            x402_price_usd: null,
            invoke_url: `${stack.config.publicBaseUrl}/api/external/tools/words/actions/count/invoke`,
          },
        ],
      });
    });

    it('searches word prefixes over name, display name and description, filters categories; descriptor on every answer', async () => {
      const weather = await http('GET', url('/tools?query=WEATH%20forec&page_size=5'));
      expect(weather.body.pagination).toMatchObject({
        total_count: 11,
        total_pages: 3,
        has_more: true,
        next_page: 2,
        page_size: 5,
      });
      const counter = await http('GET', url('/tools?query=counter'));
      expect(counter.body.tools.map((t: any) => t.slug)).toEqual(['words']);
      const cat = await http('GET', url('/tools?categories=text,finance'));
      expect(cat.body.pagination.total_count).toBe(13);
      const none = await http('GET', url('/tools?query=zzzz-nothing&categories=weather'));
      expect(none.status).toBe(200);
      expect(none.body).toEqual({
        success: true,
        tools: [],
        pagination: {
          page: 1,
          page_size: 100,
          total_count: 0,
          total_pages: 0,
          has_more: false,
          next_page: null,
          default_page_size: 100,
          max_page_size: 1000,
        },
      });
      const regexy = await http('GET', url('/tools?query=.*%5B(%24'));
      expect(regexy.status).toBe(200);
    });

    it('out-of-range paging is 422 in the validation shape', async () => {
      for (const q of ['page=0', 'page_size=0', 'page_size=1001', 'page=-1', 'page=abc', 'page=4&page_size=10']) {
        const res = await http('GET', url(`/tools?${q}`));
        expect([q, res.status]).toEqual([q, 422]);
        expect(res.body.detail[0].loc[0]).toBe('query');
      }
    });
  });

  describe('signed-credit invoke', () => {
    const invokeSlug = async (
      params: Record<string, unknown>,
      opts: {
        product?: string;
        action?: string;
        path?: string;
        requestId?: string;
        headers?: Record<string, string>;
      } = {},
    ) => {
      const env = await signToolInvoke({
        account: agent.account,
        sessionNonce: agent.sessionNonce,
        productSlug: opts.product ?? 'words',
        actionSlug: opts.action ?? 'count',
        parameters: params,
        requestId: opts.requestId,
      });
      return http(
        'POST',
        url(opts.path ?? `/tools/${opts.product ?? 'words'}/actions/${opts.action ?? 'count'}/invoke`),
        { body: { ...env, parameters: params }, headers: opts.headers },
      );
    };

    it('charges the price once and answers the success envelope; the request id sent again answers the recorded result, charged once', async () => {
      await ledger.grant({ wallet: agent.wallet, credits: 12, creditType: 'admin_grant' });
      const env = await signToolInvoke({
        account: agent.account,
        sessionNonce: agent.sessionNonce,
        productSlug: 'words',
        actionSlug: 'count',
        parameters: { text: 'a b c' },
      });
      const res = await http('POST', url('/tools/words/actions/count/invoke'), {
        body: { ...env, parameters: { text: 'a b c' } },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        response: { words: 3 },
        credits_charged: 5,
        transaction_id: `purchase:${agent.wallet}:${env.request_id}`,
        // Payments are configured here: the debit's signed receipt (test/x402/extensions.test.ts verifies one).
        receipt: expect.objectContaining({ format: 'eip712', signature: expect.stringMatching(/^0x/) }),
      });
      expect(res.headers.get('payment-response')).toBeTruthy();
      expect((await ledger.balance(agent.wallet)).balance).toBe(7);
      const before = vendor.calls.length;
      const again = await http('POST', url('/tools/words/actions/count/invoke'), {
        body: { ...env, parameters: { text: 'a b c' } },
      });
      // The very same answer, receipt included (issued at the debit's recorded time); no vendor call.
      expect([again.status, again.body]).toEqual([200, res.body]);
      expect(vendor.calls.length).toBe(before);
      expect((await ledger.balance(agent.wallet)).balance).toBe(7);
      // The request id names that call only: other parameters under it are refused, nothing charged.
      const other = await invokeSlug({ text: 'x y' }, { requestId: env.request_id });
      expect([other.status, other.body.code]).toEqual([409, 'request_id_conflict']);
      const otherTool = await invokeSlug(
        { text: 'a b c' },
        { product: 'twins', action: 'one', requestId: env.request_id },
      );
      expect([otherTool.status, otherTool.body.code]).toEqual([409, 'request_id_conflict']);
      expect((await ledger.balance(agent.wallet)).balance).toBe(7);
    });

    it('the hold decides: concurrent copies of one signed invoke charge once, the rest are in progress or answered from the record; a request id used by another signed action does not block it', async () => {
      await ledger.grant({ wallet: agent.wallet, credits: 10, creditType: 'admin_grant' });
      const budgetBody = { per_call_credits: null, daily_credits: null };
      const used = await agent.envelope('tool_budget', budgetBody);
      expect((await http('POST', url('/tools/budget'), { body: { ...budgetBody, ...used } })).status).toBe(200);
      const before = vendor.calls.length;
      const balance = (await ledger.balance(agent.wallet)).balance;
      // One signed invoke (a different signed message from the budget's), sent five times at once.
      const env = await signToolInvoke({
        account: agent.account,
        sessionNonce: agent.sessionNonce,
        productSlug: 'words',
        actionSlug: 'count',
        parameters: { text: 'a b' },
        requestId: used.request_id,
      });
      const copies = await Promise.all(
        Array.from({ length: 5 }, () =>
          http('POST', url('/tools/words/actions/count/invoke'), { body: { ...env, parameters: { text: 'a b' } } }),
        ),
      );
      // A copy arriving while the first runs is told so; one arriving after it gets its recorded answer.
      for (const r of copies)
        expect(r.status === 200 ? 'ok' : `${r.status} ${r.body.code}`).toMatch(/^(ok|409 invocation_in_progress)$/);
      const answered = copies.filter((r) => r.status === 200);
      expect(new Set(answered.map((r) => r.body.transaction_id)).size).toBe(1);
      expect(vendor.calls.length - before).toBe(1);
      expect((await ledger.balance(agent.wallet)).balance).toBe(balance - 5);
      const entries = await stack.db.models.creditTransactions
        .find({ user_id: agent.wallet, request_id: used.request_id })
        .lean()
        .exec();
      expect(entries.map((e) => e.transaction_type).sort()).toEqual(['hold', 'purchase']);
      // And later still: the recorded answer, nothing more charged.
      const later = await http('POST', url('/tools/words/actions/count/invoke'), {
        body: { ...env, parameters: { text: 'a b' } },
      });
      expect([later.status, later.body.transaction_id]).toEqual([200, answered[0]!.body.transaction_id]);
      expect((await ledger.balance(agent.wallet)).balance).toBe(balance - 5);
    });

    it("refuses a request id that names one of the service's own calls (a session's tool node, a run's, MCP, a bearer purchase): nothing held", async () => {
      for (const requestId of ['session:wss_0123:pay', 'run:run_1:pay', 'mcp:k1', 'idem:k1', 'emb:k1', 'siwx:n1']) {
        const res = await invokeSlug({ text: 'a' }, { requestId });
        expect([requestId, res.status, res.body.code]).toEqual([requestId, 400, 'invalid_request']);
      }
      expect(
        await stack.db.models.creditTransactions.countDocuments({
          user_id: agent.wallet,
          request_id: /^(session|run|mcp|idem|emb|siwx):/,
        }),
      ).toBe(0);
    });

    it('a signed invoke refused before any hold (insufficient credits) took nothing: the same request runs once funded, then answers its record', async () => {
      const poor = new TestAgent(stack.server.mainUrl);
      await poor.startSession();
      const env = await signToolInvoke({
        account: poor.account,
        sessionNonce: poor.sessionNonce,
        productSlug: 'words',
        actionSlug: 'count',
        parameters: { text: 'a' },
      });
      const send = () =>
        http('POST', url('/tools/words/actions/count/invoke'), { body: { ...env, parameters: { text: 'a' } } });
      expect(await send()).toMatchObject({ status: 402, body: { code: 'insufficient_credits' } });
      expect(await stack.db.models.creditTransactions.countDocuments({ user_id: poor.wallet })).toBe(0);
      await ledger.grant({ wallet: poor.wallet, credits: 5, creditType: 'admin_grant' });
      const charged = await send();
      expect(charged).toMatchObject({ status: 200, body: { credits_charged: 5 } });
      expect(await send()).toMatchObject({ status: 200, body: { transaction_id: charged.body.transaction_id } });
      expect((await ledger.balance(poor.wallet)).balance).toBe(0);
    });

    it('sends the vendor a request id derived from the account: two wallets reusing one request_id do not collide', async () => {
      const other = new TestAgent(stack.server.mainUrl);
      await other.startSession();
      const requestId = `shared-${Date.now()}`;
      const seen: string[][] = [];
      for (const a of [agent, other]) {
        await ledger.grant({ wallet: a.wallet, credits: 5, creditType: 'admin_grant' });
        const env = await signToolInvoke({
          account: a.account,
          sessionNonce: a.sessionNonce,
          productSlug: 'words',
          actionSlug: 'count',
          parameters: { text: 'a b' },
          requestId,
        });
        const before = vendor.calls.length;
        const res = await http('POST', url('/tools/words/actions/count/invoke'), {
          body: { ...env, parameters: { text: 'a b' } },
        });
        expect(res.status).toBe(200);
        const call = vendor.calls[before];
        seen.push([
          String(call.headers['idempotency-key']),
          String(call.headers['x-request-id']),
          (call.body as any).request_id,
        ]);
        expect(seen.at(-1)).toEqual(Array(3).fill(vendorRequestId(a.wallet, requestId)));
      }
      expect(seen[0][0]).not.toBe(seen[1][0]);
      expect(seen.flat()).not.toContain(requestId);
    });

    it('invoke by product id signs /external/tools/<productId>/invoke; accepted path variants, others refused', async () => {
      const env = await signToolInvokeById({
        account: agent.account,
        sessionNonce: agent.sessionNonce,
        productId: countId,
        parameters: { text: 'x' },
      });
      const res = await http('POST', url(`/tools/${countId}/invoke`), { body: { ...env, parameters: { text: 'x' } } });
      expect(res.status).toBe(200);
      expect(res.body.credits_charged).toBe(5);
      // The /api-prefixed path names the same action: accepted.
      const requestId = `v-${Date.now()}`;
      const message = buildSignedMessage({
        kind: 'path',
        wallet: agent.wallet,
        sessionNonce: agent.sessionNonce,
        requestId,
        method: 'POST',
        path: '/api/external/tools/words/actions/count/invoke',
        payload: signedPayload({}),
      });
      await ledger.grant({ wallet: agent.wallet, credits: 5, creditType: 'admin_grant' });
      const sig = await agent.account.signMessage({ message });
      const variant = await http('POST', url('/tools/words/actions/count/invoke'), {
        body: {
          wallet_address: agent.wallet,
          session_nonce: agent.sessionNonce,
          request_id: requestId,
          signature: sig,
        },
      });
      expect(variant.status).toBe(400); // signature accepted; `{}` fails the schema (text required): refused before money moves
      expect(variant.body.code).toBe('invalid_parameters');
      // A signature for another action's path does not buy this one.
      const other = await signToolInvoke({
        account: agent.account,
        sessionNonce: agent.sessionNonce,
        productSlug: 'twins',
        actionSlug: 'one',
        parameters: { text: 'x' },
      });
      const cross = await http('POST', url('/tools/words/actions/count/invoke'), {
        body: { ...other, parameters: { text: 'x' } },
      });
      expect(cross.status).toBe(401);
      expect(cross.body).toMatchObject({ success: false, code: 'signature_invalid' });
    });

    it('a signed path variant is bound to the action that runs: another action named like this slug cannot lend its signature', async () => {
      // 'first' is named "second"; a call to /actions/second runs the action whose slug is "second".
      await repo.createProduct({ slug: 'clash', name: 'clash' });
      await repo.addAction('clash', {
        slug: 'first',
        name: 'second',
        credits: 1,
        runner: { kind: 'builtin', handler: 'echo', timeout_ms: 1000 },
      });
      await repo.addAction('clash', {
        slug: 'second',
        name: 'Other',
        credits: 1,
        runner: { kind: 'builtin', handler: 'echo', timeout_ms: 1000 },
      });
      await ledger.grant({ wallet: agent.wallet, credits: 2, creditType: 'admin_grant' });
      const signedFor = async (path: string) => {
        const requestId = `clash-${Date.now()}-${Math.random()}`;
        const message = buildSignedMessage({
          kind: 'path',
          wallet: agent.wallet,
          sessionNonce: agent.sessionNonce,
          requestId,
          method: 'POST',
          path,
          payload: signedPayload({}),
        });
        return {
          wallet_address: agent.wallet,
          session_nonce: agent.sessionNonce,
          request_id: requestId,
          signature: await agent.account.signMessage({ message }),
          parameters: {},
        };
      };
      const borrowed = await http('POST', url('/tools/clash/actions/second/invoke'), {
        body: await signedFor('/external/tools/clash/actions/first/invoke'),
      });
      expect([borrowed.status, borrowed.body.code]).toEqual([401, 'signature_invalid']);
      const own = await http('POST', url('/tools/clash/actions/second/invoke'), {
        body: await signedFor('/external/tools/clash/actions/second/invoke'),
      });
      expect(own.status).toBe(200);
    });

    it('answers the slug-invoke error table in the tool error shape', async () => {
      const cases: Array<[string, () => Promise<{ status: number; body: any }>, number, string]> = [
        [
          'mixed modes',
          () => invokeSlug({ text: 'a' }, { headers: { 'X-PAYMENT': 'abc' } }),
          400,
          'mixed_payment_modes',
        ],
        [
          'malformed envelope',
          async () =>
            http('POST', url('/tools/words/actions/count/invoke'), { body: { signature: '0x12', parameters: {} } }),
          400,
          'invalid_request',
        ],
        [
          'not an object',
          async () => http('POST', url('/tools/words/actions/count/invoke'), { body: [1, 2] }),
          400,
          'invalid_request',
        ],
        [
          'broken JSON',
          async () => http('POST', url('/tools/words/actions/count/invoke'), { raw: '{"a":' }),
          400,
          'invalid_request',
        ],
        ['action/body mismatch', () => invokeSlug({ text: 'a', action: 'other' }), 400, 'action_mismatch'],
        ['hostile parameters', () => invokeSlug({ text: 'a'.repeat(500) }), 400, 'invalid_parameters'],
        [
          'unsigned credits-only call',
          async () => http('POST', url('/tools/words/actions/count/invoke'), { body: { text: 'a' } }),
          401,
          'signed_request_required',
        ],
        [
          'payment for a credits-only action',
          async () =>
            http('POST', url('/tools/words/actions/count/invoke'), {
              body: { text: 'a' },
              headers: { 'X-PAYMENT': 'abc' },
            }),
          404,
          'direct_payment_not_available',
        ],
        ['unknown product', () => invokeSlug({}, { product: 'nope' }), 404, 'product_not_found'],
        ['inactive product', () => invokeSlug({}, { product: 'retired', action: 'x' }), 404, 'product_not_found'],
        ['unknown action', () => invokeSlug({}, { action: 'nope' }), 404, 'action_not_found'],
        ['ambiguous action slug', () => invokeSlug({}, { product: 'twins', action: 'same' }), 409, 'action_ambiguous'],
        [
          'several actions by id',
          async () => {
            const twins = (await repo.getProduct({ slug: 'twins' }))!;
            const env = await signToolInvokeById({
              account: agent.account,
              sessionNonce: agent.sessionNonce,
              productId: twins.id,
              parameters: {},
            });
            return http('POST', url(`/tools/${twins.id}/invoke`), { body: { ...env, parameters: {} } });
          },
          409,
          'action_ambiguous',
        ],
      ];
      const before = (await ledger.balance(agent.wallet)).balance;
      for (const [name, run, status, code] of cases) {
        const res = await run();
        expect([name, res.status, res.body?.code, res.body?.success]).toEqual([name, status, code, false]);
        expect(typeof res.body.error).toBe('string');
      }
      expect((await ledger.balance(agent.wallet)).balance).toBe(before);
    });

    it('insufficient credits and an exceeded budget are distinct refusals; nothing is held', async () => {
      const poor = new TestAgent(stack.server.mainUrl);
      await poor.startSession();
      await ledger.grant({ wallet: poor.wallet, credits: 3, creditType: 'admin_grant' });
      const env = await signToolInvoke({
        account: poor.account,
        sessionNonce: poor.sessionNonce,
        productSlug: 'words',
        actionSlug: 'count',
        parameters: { text: 'a' },
      });
      const res = await http('POST', url('/tools/words/actions/count/invoke'), {
        body: { ...env, parameters: { text: 'a' } },
      });
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({
        success: false,
        code: 'insufficient_credits',
        details: { balance: 3, credits_required: 5 },
      });

      await ledger.grant({ wallet: poor.wallet, credits: 20, creditType: 'admin_grant' });
      const set = await poor.call('/api/external/tools/budget', 'tool_budget', {
        per_call_credits: null,
        daily_credits: 7,
      });
      expect(set.status).toBe(200);
      expect(set.body.data).toMatchObject({ per_call_credits: null, daily_credits: 7, set_by: 'wallet' });
      const first = await signToolInvoke({
        account: poor.account,
        sessionNonce: poor.sessionNonce,
        productSlug: 'words',
        actionSlug: 'count',
        parameters: { text: 'a' },
      });
      expect(
        (
          await http('POST', url('/tools/words/actions/count/invoke'), {
            body: { ...first, parameters: { text: 'a' } },
          })
        ).status,
      ).toBe(200);
      const second = await signToolInvoke({
        account: poor.account,
        sessionNonce: poor.sessionNonce,
        productSlug: 'words',
        actionSlug: 'count',
        parameters: { text: 'a' },
      });
      const over = await http('POST', url('/tools/words/actions/count/invoke'), {
        body: { ...second, parameters: { text: 'a' } },
      });
      expect(over.status).toBe(402);
      expect(over.body).toMatchObject({
        code: 'budget_exceeded',
        details: { limit: 'daily', daily_credits: 7, spent_today: 5, credits_required: 5 },
      });
      expect((await ledger.balance(poor.wallet)).balance).toBe(18);
      // This wallet's: a replayed request elsewhere in this file leaves a settled hold's queue row to the healer.
      expect(
        (await ledger.staleHolds(new Date(Date.now() + 60_000), 100)).filter((h) => h.account === poor.wallet),
      ).toEqual([]);
    });

    it('20 calls at once against a daily cap for 7: never more than 7 charged, and the cap is reachable exactly', async () => {
      const busy = new TestAgent(stack.server.mainUrl);
      await busy.startSession();
      await ledger.grant({ wallet: busy.wallet, credits: 1000, creditType: 'admin_grant' });
      expect(
        (await busy.call('/api/external/tools/budget', 'tool_budget', { per_call_credits: null, daily_credits: 35 }))
          .status,
      ).toBe(200);
      const invoke = async () => {
        const env = await signToolInvoke({
          account: busy.account,
          sessionNonce: busy.sessionNonce,
          productSlug: 'words',
          actionSlug: 'count',
          parameters: { text: 'a b' },
        });
        return http('POST', url('/tools/words/actions/count/invoke'), {
          body: { ...env, parameters: { text: 'a b' } },
        });
      };
      const burst = await Promise.all(Array.from({ length: 20 }, invoke));
      const ok = burst.filter((r) => r.status === 200).length;
      expect(burst.every((r) => r.status === 200 || (r.status === 402 && r.body.code === 'budget_exceeded'))).toBe(
        true,
      );
      expect(ok).toBeLessThanOrEqual(7);
      expect((await ledger.balance(busy.wallet)).balance).toBe(1000 - 5 * ok);
      // Racing reservations may refuse more than needed, never fewer: one at a time fills the day exactly.
      let more = 0;
      for (;;) {
        const r = await invoke();
        if (r.status !== 200) {
          expect(r.body).toMatchObject({
            code: 'budget_exceeded',
            details: { limit: 'daily', daily_credits: 35, spent_today: 35 },
          });
          break;
        }
        more += 1;
      }
      expect(ok + more).toBe(7);
      expect((await ledger.balance(busy.wallet)).balance).toBe(1000 - 35);
      expect(await stack.db.models.walletSpends.countDocuments({ wallet: busy.wallet })).toBe(7);
    });
  });
});
