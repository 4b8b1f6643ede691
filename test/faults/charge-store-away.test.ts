import { signToolInvoke } from '../../sdk/agent-client';
import { settleOp } from '../../shared/credits/ledger-entries';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { AccessTokenService } from '../../shared/identity/access-tokens';
import { ToolRepository } from '../../shared/tools/repository';
import { TestAgent } from '../support/agent';
import { http } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';
import { startStoreProxy, type StoreProxy } from '../support/store-proxy';
import { startScriptedVendor } from '../support/vendor';

/** How long the API tries to record a charge while the store is away (TOOL_SETTLE_WINDOW_MS here). */
const WINDOW_MS = 4000;

/**
 * A paid call whose charge was written just as the store went away: the store (behind a proxy the
 * test controls) stops answering right after the capture of the call's hold, before the API has
 * answered. The caller is never told a charged call failed: it gets the result, or a 503 that says
 * the charge is unknown, and then the same request id answers the recorded result, charged once.
 */
describe('fault: the store goes away between the charge and the answer', () => {
  let proxy: StoreProxy;
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let ledger: LedgerStore;
  let agent: TestAgent;
  let bearer: Record<string, string>;
  let productId: string;

  beforeAll(async () => {
    proxy = await startStoreProxy(process.env.MONGODB_URI!);
    stack = await startTestStack({ env: { MONGODB_URI: proxy.uri, TOOL_SETTLE_WINDOW_MS: String(WINDOW_MS) } });
    vendor = await startScriptedVendor((call) => ({
      status: 200,
      body: { echoed: (call.body as { parameters: unknown }).parameters },
    }));
    const repo = new ToolRepository(stack.db.models);
    productId = (await repo.createProduct({ slug: 'echo', name: 'echo' })).id;
    await repo.addAction('echo', {
      slug: 'say',
      credits: 2,
      parameters_schema: { type: 'object', properties: { n: { type: 'number' } }, additionalProperties: false },
      runner: { kind: 'http', url: `${vendor.url}/say`, method: 'POST', timeout_ms: 20_000 },
    });
    ledger = new LedgerStore(stack.db.models);
    agent = new TestAgent(stack.server.mainUrl);
    await agent.startSession();
    await ledger.grant({ wallet: agent.wallet, credits: 100, creditType: 'admin_grant' });
    const token = await new AccessTokenService(stack.db.models).issue({
      wallet: agent.wallet,
      createdBy: 'operator' as never,
    });
    bearer = { authorization: `Bearer ${token.access_token}` };
  });
  afterAll(async () => {
    await vendor?.stop();
    await stack?.stop();
    await proxy?.stop();
  });

  const invoke = (env: Awaited<ReturnType<typeof signToolInvoke>>, parameters: Record<string, unknown>) =>
    http('POST', `${stack.server.mainUrl}/api/external/tools/echo/actions/say/invoke`, {
      body: { ...env, parameters },
    });
  const signed = (parameters: Record<string, unknown>) =>
    signToolInvoke({
      account: agent.account,
      sessionNonce: agent.sessionNonce,
      productSlug: 'echo',
      actionSlug: 'say',
      parameters,
    });
  /** The ledger's purchases of a request id, read once the store answers again. */
  const purchases = async (account: string, requestId: string) => {
    await proxy.back();
    await untilStoreAnswers();
    return stack.db.models.creditTransactions
      .find({ user_id: account, transaction_type: 'purchase', request_id: requestId })
      .lean()
      .exec();
  };
  async function untilStoreAnswers() {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const ok = await stack.db.models.creditTransactions
        .countDocuments({ user_id: agent.wallet })
        .exec()
        .then(
          () => true,
          () => false,
        );
      if (ok && stack.db.isUp()) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('the store did not come back');
  }

  it('the store stops right after the capture was acknowledged: the signed invoke still answers its result and receipt', async () => {
    const parameters = { n: 1 };
    const env = await signed(parameters);
    proxy.cutAfter(settleOp(agent.wallet, env.request_id), { answer: true, downMs: 5000 });
    const res = await invoke(env, parameters);
    expect([res.status, res.body.code]).toEqual([200, undefined]);
    expect(res.body).toMatchObject({
      success: true,
      response: { echoed: parameters },
      credits_charged: 2,
      transaction_id: settleOp(agent.wallet, env.request_id),
      receipt: expect.objectContaining({ signature: expect.stringMatching(/^0x/) }),
    });
    expect(await purchases(agent.wallet, env.request_id)).toHaveLength(1);
  });

  it('the capture lands but its answer is lost, the store back within the window: the capture is tried again and the call answers, charged once', async () => {
    const parameters = { n: 2 };
    const env = await signed(parameters);
    proxy.cutAfter(settleOp(agent.wallet, env.request_id), { answer: false, downMs: 1000 });
    const res = await invoke(env, parameters);
    expect([res.status, res.body.code]).toEqual([200, undefined]);
    expect(res.body).toMatchObject({ credits_charged: 2, transaction_id: settleOp(agent.wallet, env.request_id) });
    expect(await purchases(agent.wallet, env.request_id)).toHaveLength(1);
  });

  it('the capture lands but its answer is lost, the store away past the window: 503 says the charge is unknown, and the same request answers the recorded result', async () => {
    const parameters = { n: 3 };
    const env = await signed(parameters);
    const calls = vendor.calls.length;
    proxy.cutAfter(settleOp(agent.wallet, env.request_id), { answer: false, downMs: WINDOW_MS + 8000 });
    const res = await invoke(env, parameters);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      success: false,
      code: 'store_unavailable',
      details: { charge: 'unknown', request_id: env.request_id },
    });
    const [charge] = await purchases(agent.wallet, env.request_id);
    expect(charge).toBeDefined();
    const again = await invoke(env, parameters);
    expect([again.status, again.body.code]).toEqual([200, undefined]);
    expect(again.body).toMatchObject({
      response: { echoed: parameters },
      credits_charged: 2,
      transaction_id: settleOp(agent.wallet, env.request_id),
    });
    expect(vendor.calls.length - calls).toBe(1);
    expect(await purchases(agent.wallet, env.request_id)).toHaveLength(1);
  });

  it('a bearer purchase whose store stops right after the charge still answers its result (the order record is written when the store is back)', async () => {
    const key = `away-${Date.now()}`;
    const requestId = `idem:${key}`;
    proxy.cutAfter(settleOp(agent.wallet, requestId), { answer: true, downMs: 1500 });
    const res = await http('POST', `${stack.server.apiUrl}/products/purchase`, {
      body: { product_id: productId, parameters: { n: 4 } },
      headers: { ...bearer, 'idempotency-key': key },
    });
    expect([res.status, res.body.code]).toEqual([200, undefined]);
    expect(res.body).toMatchObject({ success: true, data: { echoed: { n: 4 } }, order_id: expect.any(String) });
    expect(await purchases(agent.wallet, requestId)).toHaveLength(1);
    expect(await stack.db.models.toolOrders.countDocuments({ _id: res.body.order_id })).toBe(1);
  });
});
