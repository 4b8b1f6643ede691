import { signToolInvoke } from '../../sdk/agent-client';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { AccessTokenService } from '../../shared/identity/access-tokens';
import { ToolRepository } from '../../shared/tools/repository';
import { TestAgent } from '../support/agent';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { startTestStack, TestStack } from '../support/stack';

const purchaseBody = (wallet: string) => ({
  wallet_address: wallet,
  credits: 500,
  payment_method: 'x402',
  chain_id: 84532,
  token: 'USDC',
});

async function seedEcho(stack: TestStack): Promise<void> {
  const repo = new ToolRepository(stack.db.models);
  await repo.createProduct({ slug: 'echo', name: 'echo' });
  await repo.addAction('echo', {
    slug: 'say',
    credits: 1,
    runner: { kind: 'builtin', handler: 'echo', timeout_ms: 1000 },
  });
}

function expectRateLimited(res: { status: number; body: any; headers: Headers }, limit: number) {
  expect([res.status, res.body.code ?? res.body.error_code, res.body.rate_limit?.limit]).toEqual([
    429,
    'rate_limited',
    limit,
  ]);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(res.headers.get('retry-after')).toBe(String(res.body.rate_limit.retry_after_seconds));
}

describe('hot-path rate limits (issue 18 item 14): invoke, purchase, x402 verification', () => {
  let stack: TestStack;
  let ledger: LedgerStore;
  const main = (p: string) => `${stack.server.mainUrl}/api/external${p}`;

  beforeAll(async () => {
    stack = await startTestStack({
      env: {
        INVOKE_LIMIT_PER_WALLET: '2',
        X402_VERIFY_LIMIT_PER_PAYER: '1',
        HOT_RATE_WINDOW_SECONDS: '600',
        X402_SETTLE_WAIT_MS: '0',
      },
    });
    ledger = new LedgerStore(stack.db.models);
    await seedEcho(stack);
  });
  afterAll(async () => {
    await stack.stop();
  });

  const fundedAgent = async () => {
    const agent = new TestAgent(stack.server.mainUrl);
    await agent.startSession();
    await ledger.grant({ wallet: agent.wallet, credits: 100, creditType: 'admin_grant' });
    return agent;
  };
  const invoke = async (agent: TestAgent, requestId: string) => {
    const parameters = { text: 'hi' };
    const env = await signToolInvoke({
      account: agent.account,
      sessionNonce: agent.sessionNonce,
      productSlug: 'echo',
      actionSlug: 'say',
      parameters,
      requestId,
    });
    return http('POST', main('/tools/echo/actions/say/invoke'), { body: { ...env, parameters } });
  };

  it('signed invokes over the per-wallet limit get 429 + Retry-After in the tool shape; other wallets are unaffected; the refused request id stays usable', async () => {
    const a = await fundedAgent();
    const b = await fundedAgent();
    expect((await invoke(a, 'r1')).status).toBe(200);
    expect((await invoke(a, 'r2')).status).toBe(200);
    const refused = await invoke(a, 'r3');
    expectRateLimited(refused, 2);
    expect(refused.body).toMatchObject({
      success: false,
      code: 'rate_limited',
      error: expect.stringContaining('per 600 s'),
    });
    // Nothing charged for the refusal, and its request id was not spent (a retry may reuse it).
    expect(await stack.db.models.usedRequests.findById(`${a.wallet}:r3`).lean().exec()).toBeNull();
    expect((await ledger.balance(a.wallet)).balance).toBe(98);
    expect((await invoke(b, 'r1')).status).toBe(200);
    // A stranger naming the wallet without its signature is refused on the signature and uses up nothing of b's.
    const forged = await http('POST', main('/tools/echo/actions/say/invoke'), {
      body: {
        wallet_address: b.wallet,
        session_nonce: b.sessionNonce,
        request_id: 'f1',
        signature: '0x' + '1'.repeat(130),
        parameters: { text: 'hi' },
      },
    });
    expect(forged.status).toBe(401);
    expect((await invoke(b, 'r2')).status).toBe(200);
    expectRateLimited(await invoke(b, 'r3'), 2);
  });

  it('bearer invokes (/products/purchase) share the per-wallet invoke limit', async () => {
    const wallet = '0x' + 'bc'.repeat(20);
    await ledger.grant({ wallet, credits: 100, creditType: 'admin_grant' });
    const token = await new AccessTokenService(stack.db.models).issue({ wallet, createdBy: 'operator' as never });
    const call = () =>
      http('POST', `${stack.server.apiUrl}/products/purchase`, {
        body: { product_id: 'echo', parameters: { action: 'say', text: 'x' } },
        headers: { authorization: `Bearer ${token.access_token}` },
      });
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(200);
    expectRateLimited(await call(), 2);
  });

  it('x402 verification: a payer past its limit of new payments gets 429 before the payment is recorded', async () => {
    const payer = new TestPayer();
    await payer.fund(20);
    const url = main('/credits/purchase');
    const pay = async (wallet: string) => {
      const challenge = (await http('POST', url, { body: purchaseBody(wallet) })).body;
      return http('POST', url, {
        body: purchaseBody(wallet),
        headers: { 'x-payment': await payer.paymentHeader(challenge) },
      });
    };
    expect([200, 202]).toContain((await pay('0x' + 'c1'.repeat(20))).status);
    const refused = await pay('0x' + 'c2'.repeat(20));
    expectRateLimited(refused, 1);
    expect(refused.body).toMatchObject({ error: 'Too Many Requests', error_code: 'rate_limited' });
    expect(await stack.db.models.x402Payments.countDocuments({ payer: payer.account.address.toLowerCase() })).toBe(1);
  });
});

describe('hot-path rate limits per client address, and their refill', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // A token comes back every window/limit = 10 s: room for the refused calls below (a session, a
    // signature, three hosts) to all land before it on a loaded machine; the refill is waited for.
    stack = await startTestStack({
      env: { INVOKE_LIMIT_PER_CLIENT: '2', PURCHASE_LIMIT_PER_CLIENT: '2', HOT_RATE_WINDOW_SECONDS: '20' },
    });
    await seedEcho(stack);
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('invokes (signed, bearer or x402) and credit purchases from one address: 429 + Retry-After past the limit, whichever wallet, and served again once refilled', async () => {
    const invokeUrl = `${stack.server.mainUrl}/api/external/tools/echo/actions/say/invoke`;
    // Unsigned, unpaid calls: each is refused (401) after it counted against the address.
    const unsigned = () => http('POST', invokeUrl, { body: { text: 'x' } });
    expect((await unsigned()).status).toBe(401);
    expect((await unsigned()).status).toBe(401);
    const refused = await unsigned();
    expectRateLimited(refused, 2);
    expect(refused.body).toMatchObject({ success: false, code: 'rate_limited' });
    // Another wallet from the same address is refused before its signature is even checked.
    const other = new TestAgent(stack.server.mainUrl);
    await other.startSession();
    const env = await signToolInvoke({
      account: other.account,
      sessionNonce: other.sessionNonce,
      productSlug: 'echo',
      actionSlug: 'say',
      parameters: {},
    });
    expectRateLimited(await http('POST', invokeUrl, { body: { ...env, parameters: {} } }), 2);
    // The bearer invoke counts against the same address.
    expectRateLimited(
      await http('POST', `${stack.server.apiUrl}/products/purchase`, {
        body: { product_id: 'echo', parameters: {} },
        headers: { authorization: 'Bearer act_x' },
      }),
      2,
    );

    const purchase = () =>
      http('POST', `${stack.server.mainUrl}/api/external/credits/purchase`, {
        body: purchaseBody('0x' + '1'.repeat(40)),
      });
    expect((await purchase()).status).toBe(402);
    expect((await purchase()).status).toBe(402);
    const purchaseRefused = await purchase();
    expectRateLimited(purchaseRefused, 2);
    expect(purchaseRefused.body).toMatchObject({ error: 'Too Many Requests', error_code: 'rate_limited' });

    await new Promise((r) => setTimeout(r, Number(refused.headers.get('retry-after')) * 1000 + 100));
    expect((await unsigned()).status).toBe(401);
  });
});
