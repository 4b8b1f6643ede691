import { type Address, getAddress, type Hex } from 'viem';
import { type RunningLocalChain, startLocalChain } from '../../scripts/services/local-chain';
import { mintTokens } from '../../shared/payments/chain/deploy-token';
import { DEV_ACCOUNT_INDEX, devAccount } from '../../shared/payments/chain/dev-accounts';
import type { X402PaymentDoc } from '../../shared/payments/models/x402-payment';
import { decodePaymentPayload, decodePaymentResponse } from '../../shared/payments/x402/challenge';
import { ToolRepository } from '../../shared/tools/repository';
import { executeAuthorization, rpc, signAuthorization } from '../support/chain-control';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { proofFrom } from '../support/public-authorization';
import { startTestStack, TestStack } from '../support/stack';
import { startScriptedVendor, type VendorBehaviour } from '../support/vendor';
import { waitUntil } from '../support/wait';

const merchant = devAccount(DEV_ACCOUNT_INDEX.merchant).address as Address;
const token = () => ({ address: TestPayer.tokenAddress(), name: 'USDC', version: '2' });
const PRICE = 50_000n; // x402_usd 0.05

jest.setTimeout(120_000);

// These tests stop mining and spend nonces behind our back, so they run on a chain of their own.
describe('direct x402 tool calls when settlement or the vendor misbehave (own anvil, real store, Temporal, HTTP vendor)', () => {
  let chain: RunningLocalChain;
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let behaviour: VendorBehaviour = () => ({ status: 200, body: { ok: true } });
  const url = (product = 'paid') => `${stack.server.mainUrl}/api/external/tools/${product}/actions/run/invoke`;

  beforeAll(async () => {
    chain = await startLocalChain();
    Object.assign(process.env, chain.env);
    // Long enough for a settlement on an automining chain (or its refusal) to be awaited, on a loaded machine too.
    stack = await startTestStack({ workers: true, env: { X402_SETTLE_WAIT_MS: '20000' } });
    vendor = await startScriptedVendor((call) => behaviour(call));
    const repo = new ToolRepository(stack.db.models);
    await repo.createProduct({ slug: 'paid', name: 'paid' });
    await repo.addAction('paid', {
      slug: 'run',
      credits: 1,
      x402_usd: '0.05',
      parameters_schema: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
      runner: { kind: 'http', url: `${vendor.url}/run`, method: 'POST', timeout_ms: 20_000 },
    });
    // A tight bound for the timeout case only: on a loaded machine 1 s can run out for a vendor
    // that answers at once (or spends a nonce on the chain first), so calls that must succeed use 'paid'.
    await repo.createProduct({ slug: 'paid-hasty', name: 'paid hasty' });
    await repo.addAction('paid-hasty', {
      slug: 'run',
      credits: 1,
      x402_usd: '0.05',
      parameters_schema: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
      runner: { kind: 'http', url: `${vendor.url}/run`, method: 'POST', timeout_ms: 1_000 },
    });
  }, 180_000);
  afterAll(async () => {
    await vendor?.stop();
    await stack?.stop();
    await chain?.stop();
  });
  afterEach(async () => {
    await rpc(chain.rpcUrl, 'evm_setAutomine', [true]);
    behaviour = () => ({ status: 200, body: { ok: true } });
  });

  const paymentOf = (payer: TestPayer) =>
    stack.db.models.x402Payments.findOne({ payer: payer.account.address.toLowerCase() }).lean<X402PaymentDoc>().exec();
  async function signedHeader(payer: TestPayer, params: Record<string, unknown>, product?: string): Promise<string> {
    const challenge = await http('POST', url(product), { body: params });
    expect(challenge.status).toBe(402);
    return payer.paymentHeader(challenge.body);
  }

  it("settlement not confirmed within the wait: 202 without the result (settling); once mined the same payment with the payer's proof answers 200 with the result and the transaction", async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    const merchantBefore = await payer.balance(merchant);
    behaviour = () => ({ status: 200, body: { answer: 'only_once_paid' } });
    const header = await signedHeader(payer, { n: 1 });
    const before = vendor.calls.length;
    await rpc(chain.rpcUrl, 'evm_setAutomine', [false]);
    const res = await http('POST', url(), { body: { n: 1 }, headers: { 'x-payment': header } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ success: false, status: 'settling', x402: { settled: false } });
    expect(res.body.payment_id).toBe(res.body.x402.payment_id);
    expect(res.body.response).toBeUndefined();
    expect(res.text).not.toContain('only_once_paid');
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(['verified', 'submitted']).toContain(res.body.x402.settlement_status);
    expect(res.headers.get('payment-response')).toBeNull();
    expect(vendor.calls.length - before).toBe(1);

    // Still settling: the same payment again is reported pending with its id (never a 402), and the
    // vendor is not called again; the status oracle says the same.
    const early = await http('POST', url(), { body: { n: 1 }, headers: { 'x-payment': header } });
    expect(early.status).toBe(202);
    expect(early.body).toMatchObject({ status: 'settling', payment_id: res.body.payment_id });
    const oracle = await http('GET', `${stack.server.mainUrl}/api/external/payments/${res.body.payment_id}`);
    expect(oracle.body.data).toMatchObject({ status: 'pending', payment_id: res.body.payment_id });

    await rpc(chain.rpcUrl, 'evm_setAutomine', [true]);
    await rpc(chain.rpcUrl, 'anvil_mine', ['0x1']);
    await waitUntil('the settlement', async () => (await paymentOf(payer))?.status === 'completed', 60_000);
    // Settled: the same payment alone gets its status and receipt; with the payer's proof, the result.
    const status = await http('POST', url(), { body: { n: 1 }, headers: { 'x-payment': header } });
    expect(status.body).toMatchObject({ status: 'settled', x402: { settled: true } });
    expect(status.text).not.toContain('only_once_paid');
    const proof = await proofFrom(status.body, payer.account, stack.config.publicBaseUrl);
    const later = await http('POST', url(), {
      body: { n: 1 },
      headers: { 'x-payment': header, 'sign-in-with-x': proof },
    });
    expect(later.status).toBe(200);
    expect(later.body).toMatchObject({
      success: true,
      response: { answer: 'only_once_paid' },
      x402: { settled: true },
    });
    expect(later.body.x402.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = decodePaymentResponse(later.headers.get('payment-response'));
    expect(receipt.ok && receipt.value).toMatchObject({ success: true, transaction: later.body.x402.transaction });
    expect(vendor.calls.length - before).toBe(1);
    expect(await payer.balance()).toBe(1_000_000n - PRICE);
    expect((await payer.balance(merchant)) - merchantBefore).toBe(PRICE);
  });

  it('a settlement that fails after the vendor delivered: the result is withheld, 402 with the code; the same payment again gets the same 402', async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    await payer.fundGas();
    const merchantBefore = await payer.balance(merchant);
    const header = await signedHeader(payer, { n: 2 });
    const before = vendor.calls.length;
    const decoded = decodePaymentPayload(header);
    if (!decoded.ok) throw new Error(decoded.message);
    const nonce = (decoded.value as { payload: { authorization: { nonce: Hex } } }).payload.authorization.nonce;
    // While the vendor works, the payer spends the same nonce on a transfer to itself.
    behaviour = async () => {
      const theirs = await signAuthorization(payer.account, token(), {
        to: payer.account.address,
        value: 1_000_000n,
        nonce,
      });
      await executeAuthorization(chain.rpcUrl, payer.account, TestPayer.tokenAddress(), theirs);
      return { status: 200, body: { secret_result: 'only for payers' } };
    };
    const res = await http('POST', url(), { body: { n: 2 }, headers: { 'x-payment': header } });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      x402Version: 2,
      error: 'authorization_used_elsewhere',
      accepts: [expect.objectContaining({ amount: PRICE.toString() })],
    });
    expect(res.text).not.toContain('only for payers');
    expect(res.headers.get('payment-required')).not.toBeNull();
    expect(await paymentOf(payer)).toMatchObject({ status: 'failed', error_code: 'authorization_used_elsewhere' });

    const again = await http('POST', url(), { body: { n: 2 }, headers: { 'x-payment': header } });
    expect(again.status).toBe(402);
    expect(again.body).toMatchObject({ error: 'authorization_used_elsewhere' });
    expect(again.text).not.toContain('only for payers');
    expect(vendor.calls.length - before).toBe(1);
    expect(await payer.balance()).toBe(1_000_000n);
    expect(await payer.balance(merchant)).toBe(merchantBefore);
  });

  it('a vendor timeout settles nothing: 504, the authorization never executed; the same payment again is 402 vendor_timeout', async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    const merchantBefore = await payer.balance(merchant);
    behaviour = () => ({ status: 200, body: { late: true }, delayMs: 3_000 });
    const header = await signedHeader(payer, { n: 3 }, 'paid-hasty');
    const before = vendor.calls.length;
    const res = await http('POST', url('paid-hasty'), { body: { n: 3 }, headers: { 'x-payment': header } });
    expect([res.status, res.body.code, res.body.success]).toEqual([504, 'vendor_timeout', false]);
    expect(res.headers.get('payment-response')).toBeNull();
    const rec = await paymentOf(payer);
    expect(rec).toMatchObject({ status: 'failed', error_code: 'vendor_timeout' });
    expect(rec!.tx_hash).toBeUndefined();
    const again = await http('POST', url('paid-hasty'), { body: { n: 3 }, headers: { 'x-payment': header } });
    expect(again.status).toBe(402);
    expect(again.body).toMatchObject({ error: 'vendor_timeout' });
    expect(vendor.calls.length - before).toBe(1);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await payer.balance()).toBe(1_000_000n);
    expect(await payer.balance(merchant)).toBe(merchantBefore);
  });

  it('the same payment twice at once: one vendor call and one 200, the twin 409 payment_in_progress; charged once', async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    // The vendor holds the first call long enough that the twin, however late a loaded machine sends it, finds it in progress.
    behaviour = () => ({ status: 200, body: { once: true }, delayMs: 2_500 });
    const header = await signedHeader(payer, { n: 4 });
    const before = vendor.calls.length;
    const [a, b] = await Promise.all(
      [0, 1].map(() => http('POST', url(), { body: { n: 4 }, headers: { 'x-payment': header } })),
    );
    const answers = [a!, b!].map((r) => [r.status, r.body.code ?? null]).sort();
    expect(answers).toEqual([
      [200, null],
      [409, 'payment_in_progress'],
    ]);
    const twin = [a!, b!].find((r) => r.status === 409)!;
    expect(twin.body).toMatchObject({ success: false, error: expect.any(String) });
    expect(vendor.calls.length - before).toBe(1);
    expect(await payer.balance()).toBe(1_000_000n - PRICE);
    expect(getAddress((await paymentOf(payer))!.pay_to)).toBe(merchant);
  });

  it('N authorizations at once over a balance for one: exactly one vendor call and one settlement; the rest 402 insufficient_balance, never delivered', async () => {
    const payer = new TestPayer();
    await mintTokens({
      rpcUrl: chain.rpcUrl,
      chainId: 84532,
      token: TestPayer.tokenAddress(),
      to: payer.account.address,
      amount: PRICE,
    });
    behaviour = () => ({ status: 200, body: { paid_once: true }, delayMs: 500 });
    // Four distinct authorizations (own nonces), each alone covered by the balance.
    const headers = await Promise.all([5, 6, 7, 8].map((n) => signedHeader(payer, { n })));
    const before = vendor.calls.length;
    const answers = await Promise.all(
      headers.map((h, i) => http('POST', url(), { body: { n: 5 + i }, headers: { 'x-payment': h } })),
    );
    const ok = answers.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    expect(ok[0]!.body).toMatchObject({ success: true, response: { paid_once: true }, x402: { settled: true } });
    const refused = answers.filter((r) => r.status !== 200);
    expect(refused.map((r) => [r.status, r.body.error])).toEqual(refused.map(() => [402, 'insufficient_balance']));
    for (const r of refused) expect(r.text).not.toContain('paid_once');
    expect(vendor.calls.length - before).toBe(1);
    const records = await stack.db.models.x402Payments
      .find({ payer: payer.account.address.toLowerCase() })
      .lean<X402PaymentDoc[]>()
      .exec();
    expect(records.filter((r) => r.status === 'completed')).toHaveLength(1);
    expect(records.filter((r) => r.tx_hash)).toHaveLength(1);
    expect(await payer.balance()).toBe(0n);

    // Once that one settled, the balance is free again for a payment it covers.
    await mintTokens({
      rpcUrl: chain.rpcUrl,
      chainId: 84532,
      token: TestPayer.tokenAddress(),
      to: payer.account.address,
      amount: PRICE,
    });
    const next = await http('POST', url(), {
      body: { n: 9 },
      headers: { 'x-payment': await signedHeader(payer, { n: 9 }) },
    });
    expect(next.status).toBe(200);
    expect(vendor.calls.length - before).toBe(2);
  });
});
