import { wrapFetchWithPayment } from '@x402/fetch';
import { type Address, getAddress } from 'viem';
import { seedDemoCatalog } from '../../scripts/services/demo-vendor/catalog';
import { DEV_ACCOUNT_INDEX, devAccount } from '../../shared/payments/chain/dev-accounts';
import { decodePaymentRequired, decodePaymentResponse } from '../../shared/payments/x402/challenge';
import { ToolRepository } from '../../shared/tools/repository';
import { startTestDemoVendor } from '../support/demo-vendor';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { proofFrom } from '../support/public-authorization';
import { startTestStack, TestStack } from '../support/stack';

const merchant = devAccount(DEV_ACCOUNT_INDEX.merchant).address as Address;

describe('direct x402 on a tool action: the demo vendor paid per call on the local chain', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startTestDemoVendor>>;
  const actionPath = (p: string, a: string) => `/api/external/tools/${p}/actions/${a}/invoke`;
  const url = (p: string, a: string) => `${stack.server.mainUrl}${actionPath(p, a)}`;

  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    vendor = await startTestDemoVendor();
    await seedDemoCatalog(new ToolRepository(stack.db.models), {
      vendorUrl: vendor.url,
      vendorSecret: vendor.secret,
      secretKey: stack.config.tools.secretsKey,
    });
  }, 120_000);
  afterAll(async () => {
    await vendor.stop();
    await stack.stop();
  });

  it('answers a call without payment with the 402 challenge for the action (absolute resource url, its x402 price)', async () => {
    const res = await http('POST', url('chain-reader', 'block-facts'), { body: {} });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      x402Version: 2,
      error: 'payment_required',
      resource: {
        url: `${stack.config.publicBaseUrl}${actionPath('chain-reader', 'block-facts')}`,
        mimeType: 'application/json',
      },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:84532',
          amount: '10000',
          asset: getAddress(TestPayer.tokenAddress()),
          payTo: merchant,
        },
      ],
    });
    const header = decodePaymentRequired(res.headers.get('payment-required'));
    expect(header.ok && header.value).toEqual(res.body);
  });

  it('is paid by the official @x402/fetch client: vendor called once, settled once, the x402 block and PAYMENT-RESPONSE', async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    const paidFetch = wrapFetchWithPayment(fetch, payer.client());
    const res = await paidFetch(url('chain-reader', 'token-balance'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: vendor.tokenAddress, address: payer.account.address }),
    });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body).toMatchObject({
      success: true,
      response: { symbol: 'USDC', address: payer.account.address },
      x402: {
        settled: true,
        network: 'eip155:84532',
        resource_url: `${stack.config.publicBaseUrl}${actionPath('chain-reader', 'token-balance')}`,
        settlement_recorded: true,
        payment: {
          token: 'USDC',
          amount_base_units: '20000',
          amount_usd: 0.02,
          payer_wallet_address: payer.account.address.toLowerCase(),
          pay_to: merchant,
        },
      },
    });
    expect(body.x402.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = decodePaymentResponse(res.headers.get('payment-response'));
    expect(receipt.ok && receipt.value).toMatchObject({
      success: true,
      transaction: body.x402.transaction,
      network: 'eip155:84532',
    });
    expect(await payer.balance()).toBe(1_000_000n - 20_000n);
    expect(await payer.paidIn(body.x402.transaction, merchant)).toBe(20_000n);
  });

  it("answers the same payment again with its status and receipt, the recorded result with the payer's proof: no second vendor call, no second settlement; other parameters are 409", async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    const params = { token: vendor.tokenAddress };
    const challenge = (await http('POST', url('chain-reader', 'erc20-metadata'), { body: params })).body;
    const header = await payer.paymentHeader(challenge);
    const first = await http('POST', url('chain-reader', 'erc20-metadata'), {
      body: params,
      headers: { 'x-payment': header },
    });
    expect(first.status).toBe(200);
    const calls = await stack.db.models.x402Payments.countDocuments({ payer: payer.account.address.toLowerCase() });
    const again = await http('POST', url('chain-reader', 'erc20-metadata'), {
      body: params,
      headers: { 'payment-signature': header },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ success: true, status: 'settled', x402: first.body.x402 });
    expect(again.body.response).toBeUndefined();
    const proof = await proofFrom(again.body, payer.account, stack.config.publicBaseUrl);
    const proven = await http('POST', url('chain-reader', 'erc20-metadata'), {
      body: params,
      headers: { 'x-payment': header, 'sign-in-with-x': proof },
    });
    expect(proven.status).toBe(200);
    expect(proven.body).toEqual(first.body);
    expect(await stack.db.models.x402Payments.countDocuments({ payer: payer.account.address.toLowerCase() })).toBe(
      calls,
    );
    expect(await payer.balance()).toBe(1_000_000n - 10_000n);
    const other = await http('POST', url('chain-reader', 'erc20-metadata'), {
      body: { token: getAddress('0x' + '00'.repeat(19) + '02') },
      headers: { 'x-payment': header },
    });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ success: false, code: 'payment_already_used' });
    // A tool call's payment buys no credits.
    const purchase = await http('POST', `${stack.server.mainUrl}/api/external/credits/purchase`, {
      body: {
        wallet_address: payer.account.address.toLowerCase(),
        credits: 500,
        payment_method: 'x402',
        chain_id: 84532,
        token: 'USDC',
      },
      headers: { 'x-payment': header },
    });
    expect([purchase.status, purchase.body.error_code]).toEqual([409, 'payment_already_used']);
  });

  it('refuses hostile or invalid parameters before any challenge or payment', async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    const challenge = (
      await http('POST', url('chain-reader', 'erc20-metadata'), { body: { token: vendor.tokenAddress } })
    ).body;
    const header = await payer.paymentHeader(challenge);
    for (const body of [
      { token: 'not-an-address' },
      { token: vendor.tokenAddress, $where: 'sleep(1000)' },
      { token: 'x'.repeat(100_000) },
      {},
    ]) {
      for (const headers of [{}, { 'x-payment': header }] as Array<Record<string, string>>) {
        const res = await http('POST', url('chain-reader', 'erc20-metadata'), { body, headers });
        expect([res.status, res.body.code]).toEqual([400, 'invalid_parameters']);
        expect(res.headers.get('payment-required')).toBeNull();
      }
    }
    expect(await stack.db.models.x402Payments.countDocuments({ payer: payer.account.address.toLowerCase() })).toBe(0);
    expect(await payer.balance()).toBe(1_000_000n);
  });

  it('a vendor that fails after the payment was verified charges nothing: the authorization is never settled', async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    const params = { token: getAddress('0x' + '00'.repeat(19) + '01') }; // not a contract: the vendor answers 400
    const challenge = (await http('POST', url('chain-reader', 'erc20-metadata'), { body: params })).body;
    const header = await payer.paymentHeader(challenge);
    const res = await http('POST', url('chain-reader', 'erc20-metadata'), {
      body: params,
      headers: { 'x-payment': header },
    });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ success: false, code: 'vendor_error', details: { vendor_status: 400 } });
    expect(res.headers.get('payment-response')).toBeNull();
    const rec = await stack.db.models.x402Payments.findOne({ payer: payer.account.address.toLowerCase() }).lean();
    expect(rec).toMatchObject({ status: 'failed', error_code: 'vendor_error' });
    expect(rec!.tx_hash).toBeUndefined();
    // The same payment again is not run again, and still not charged.
    const again = await http('POST', url('chain-reader', 'erc20-metadata'), {
      body: params,
      headers: { 'x-payment': header },
    });
    expect(again.status).toBe(402);
    expect(again.body).toMatchObject({
      error: 'vendor_error',
      accepts: [expect.objectContaining({ amount: '10000' })],
    });
    await new Promise((r) => setTimeout(r, 1_500));
    // The payer's own balance: the merchant's is shared with other test files on this chain.
    expect(await payer.balance()).toBe(1_000_000n);
  });

  it('an envelope with a payment header is 400 mixed_payment_modes; a payment for an action without an x402 price is 404', async () => {
    const mixed = await http('POST', url('chain-reader', 'block-facts'), {
      body: {
        wallet_address: '0x' + '1'.repeat(40),
        signature: '0x00',
        session_nonce: 'n',
        request_id: 'r',
        parameters: {},
      },
      headers: { 'x-payment': 'abc' },
    });
    expect([mixed.status, mixed.body.code]).toEqual([400, 'mixed_payment_modes']);
    const credited = await http('POST', url('text-tools', 'stats'), {
      body: { text: 'a' },
      headers: { 'x-payment': 'abc' },
    });
    expect([credited.status, credited.body.code, credited.body.success]).toEqual([
      404,
      'direct_payment_not_available',
      false,
    ]);
  });
});
