import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { PaymentRequired } from '@x402/core/types';
import { type Address, getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { signToolInvoke } from '../../sdk/agent-client';
import { main } from '../../sdk/src/cli/main';
import { receiptFromHeader, signInWithX, verifyReceipt } from '../../sdk/src/payments';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { DEV_ACCOUNT_INDEX, devAccount } from '../../shared/payments/chain/dev-accounts';
import type { X402PaymentDoc } from '../../shared/payments/models/x402-payment';
import { decodePaymentPayload, encodePaymentPayload } from '../../shared/payments/x402/challenge';
import { ToolRepository } from '../../shared/tools/repository';
import { TestAgent } from '../support/agent';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { startTestStack, TestStack } from '../support/stack';
import { startScriptedVendor } from '../support/vendor';

const merchant = devAccount(DEV_ACCOUNT_INDEX.merchant).address as Address;
const PRICE = 50_000n; // x402_usd 0.05

jest.setTimeout(180_000);

/** The official client's payment, with the payment-identifier extension's id added (the signature covers only the authorization). */
async function paidWithId(payer: TestPayer, challenge: PaymentRequired, id: string): Promise<string> {
  const decoded = decodePaymentPayload(await payer.paymentHeader(challenge));
  if (!decoded.ok) throw new Error(decoded.message);
  const payload = decoded.value as { extensions?: Record<string, unknown> };
  payload.extensions = { ...payload.extensions, 'payment-identifier': { info: { required: false, id } } };
  return encodePaymentPayload(payload as never);
}

describe('x402 extensions on the real stack (store, Temporal workers, local chain, HTTP vendor)', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let signer: string;
  /** The direct call's answer, for the CLI test. */
  let paidAnswer: { payment_id: string; receipt: unknown; transaction: string } | undefined;
  const toolUrl = (params = '') => `${stack.server.mainUrl}/api/external/tools/ext${params}/actions/run/invoke`;
  const purchaseUrl = () => `${stack.server.mainUrl}/api/external/credits/purchase`;
  const paymentsOf = (payer: TestPayer) =>
    stack.db.models.x402Payments.find({ payer: payer.account.address.toLowerCase() }).lean<X402PaymentDoc[]>().exec();

  beforeAll(async () => {
    stack = await startTestStack({ workers: true, env: { X402_SETTLE_WAIT_MS: '30000' } });
    vendor = await startScriptedVendor((call) => ({
      status: 200,
      body: { echo: (call.body as { parameters?: unknown }).parameters },
    }));
    const repo = new ToolRepository(stack.db.models);
    await repo.createProduct({ slug: 'ext', name: 'ext' });
    await repo.addAction('ext', {
      slug: 'run',
      credits: 5,
      x402_usd: '0.05',
      parameters_schema: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
      runner: { kind: 'http', url: `${vendor.url}/run`, method: 'POST', timeout_ms: 30_000 },
    });
    const supported = await http('GET', `${stack.server.mainUrl}/supported`);
    expect(supported.status).toBe(200);
    signer = supported.body.receiptSigner;
    expect(signer).toMatch(/^0x[0-9a-fA-F]{40}$/);
  }, 180_000);
  afterAll(async () => {
    await vendor?.stop();
    await stack?.stop();
  });

  it('advertises payment-identifier and sign-in-with-x in the 402, sign-in-with-x bound to PUBLIC_BASE_URL', async () => {
    const res = await http('POST', toolUrl(), { body: { n: 1 }, headers: { host: 'evil.example' } });
    expect(res.status).toBe(402);
    expect(res.body.extensions['payment-identifier']).toMatchObject({ info: { required: false } });
    const siwx = res.body.extensions['sign-in-with-x'];
    expect(siwx.info).toMatchObject({
      domain: new URL(stack.config.publicBaseUrl).host,
      uri: `${stack.config.publicBaseUrl}/api/external/tools/ext/actions/run/invoke`,
      version: '1',
    });
    expect(siwx.supportedChains).toEqual([{ chainId: 'eip155:84532', type: 'eip191' }]);
    const purchase = await http('POST', purchaseUrl(), {
      body: { wallet_address: merchant, credits: 500, payment_method: 'x402', chain_id: 84532, token: 'USDC' },
    });
    expect(purchase.status).toBe(402);
    expect(Object.keys(purchase.body.extensions)).toEqual(['payment-identifier']);
  });

  it('a direct call replayed with one payment identifier and a new authorization: called once, settled once, same result; another payload is 409', async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    const merchantBefore = await payer.balance(merchant);
    const id = `direct-${Date.now()}-0001`;
    const challenge = (await http('POST', toolUrl(), { body: { n: 7 } })).body;
    const before = vendor.calls.length;

    const first = await http('POST', toolUrl(), {
      body: { n: 7 },
      headers: { 'x-payment': await paidWithId(payer, challenge, id) },
    });
    expect(first.status).toBe(200);
    expect(first.body.response).toEqual({ echo: { n: 7 } });
    const tx = first.body.x402.transaction;
    expect(tx).toMatch(/^0x[0-9a-f]{64}$/);

    // The receipt: in the body and in PAYMENT-RESPONSE, accepted offline; any tampering refused.
    const receipt = receiptFromHeader(first.headers.get('payment-response'));
    expect(receipt).toEqual(first.body.x402.receipt);
    const ok = await verifyReceipt(receipt, {
      signer,
      payer: payer.account.address,
      transaction: tx,
      resourceUrl: `${stack.config.publicBaseUrl}/api/external/tools/ext/actions/run/invoke`,
    });
    expect(ok).toMatchObject({ ok: true, payload: { transaction: tx, network: 'eip155:84532' } });
    const tampered = { ...receipt!, payload: { ...receipt!.payload, payer: merchant.toLowerCase() } };
    expect((await verifyReceipt(tampered, { signer })).ok).toBe(false);
    const forged = { ...receipt!, payload: { ...receipt!.payload, transaction: `0x${'00'.repeat(32)}` } };
    expect((await verifyReceipt(forged, { signer })).ok).toBe(false);
    expect((await verifyReceipt(receipt, { signer: merchant })).ok).toBe(false);

    // Same id, same call, a brand-new authorization: the recorded result, nothing paid or called again.
    const again = await http('POST', toolUrl(), {
      body: { n: 7 },
      headers: { 'x-payment': await paidWithId(payer, challenge, id) },
    });
    expect(again.status).toBe(200);
    expect(again.body.response).toEqual({ echo: { n: 7 } });
    expect(again.body.x402.transaction).toBe(tx);
    expect((await verifyReceipt(again.body.x402.receipt, { signer, transaction: tx })).ok).toBe(true);

    // Same id, another payload: 409, nothing verified.
    const other = await http('POST', toolUrl(), {
      body: { n: 8 },
      headers: { 'x-payment': await paidWithId(payer, (await http('POST', toolUrl(), { body: { n: 8 } })).body, id) },
    });
    expect([other.status, other.body.code]).toEqual([409, 'payment_identifier_conflict']);

    expect(vendor.calls.length - before).toBe(1);
    expect(await paymentsOf(payer)).toHaveLength(1);
    expect(await payer.balance()).toBe(1_000_000n - PRICE);
    expect(await payer.paidIn(tx, merchant)).toBe(PRICE);
    expect((await payer.balance(merchant)) - merchantBefore).toBeGreaterThanOrEqual(PRICE);

    // The status oracle for the direct call.
    const paymentId = first.body.x402.payment_id;
    paidAnswer = { payment_id: paymentId, receipt, transaction: tx };
    const status = await http('GET', `${stack.server.mainUrl}/api/external/payments/${paymentId}`);
    expect(status.status).toBe(200);
    expect(status.body.data).toMatchObject({ payment_id: paymentId, status: 'settled', transaction: tx, error: null });
    // What the payment bought and where is for its payer (test/x402/payer-proof.test.ts).
    expect(status.body.data.purpose).toBeUndefined();
  });

  it('a purchase replayed with one payment identifier settles once (one grant, one transfer); another body is 409; the status oracle answers', async () => {
    const payer = new TestPayer();
    await payer.fund(5);
    const wallet = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
    const body = { wallet_address: wallet, credits: 500, payment_method: 'x402', chain_id: 84532, token: 'USDC' };
    const id = `purchase-${Date.now()}-0001`;
    const challenge = (await http('POST', purchaseUrl(), { body })).body;

    const first = await http('POST', purchaseUrl(), {
      body,
      headers: { 'x-payment': await paidWithId(payer, challenge, id) },
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ status: 'completed', credits: 500, balance: 500 });
    const tx = first.body.x402.transaction;
    expect(
      (await verifyReceipt(receiptFromHeader(first.headers.get('payment-response')), { signer, transaction: tx })).ok,
    ).toBe(true);

    // The payer could not pay twice anyway ($5 of $5), but a second authorization is signed and sent.
    const again = await http('POST', purchaseUrl(), {
      body,
      headers: { 'x-payment': await paidWithId(payer, challenge, id) },
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({
      status: 'completed',
      payment_id: first.body.data.payment_id,
      balance: 500,
    });
    const conflict = await http('POST', purchaseUrl(), {
      body: { ...body, credits: 1000 },
      headers: {
        'x-payment': await paidWithId(
          payer,
          (await http('POST', purchaseUrl(), { body: { ...body, credits: 1000 } })).body,
          id,
        ),
      },
    });
    expect([conflict.status, conflict.body.error_code]).toEqual([409, 'payment_identifier_conflict']);

    expect((await new LedgerStore(stack.db.models).balance(wallet)).balance).toBe(500);
    expect(
      await stack.db.models.creditTransactions.countDocuments({ user_id: wallet, transaction_type: 'grant' }),
    ).toBe(1);
    expect(await paymentsOf(payer)).toHaveLength(1);
    expect(await payer.balance()).toBe(0n);

    const status = await http('GET', `${stack.server.mainUrl}/api/external/payments/${first.body.data.payment_id}`);
    expect(status.status).toBe(200);
    expect(status.body.data).toMatchObject({ status: 'settled', transaction: tx });
    // It says nothing about what the payment bought.
    expect(status.text).not.toContain(wallet);

    const missing = await http(
      'GET',
      `${stack.server.mainUrl}/api/external/payments/eip155:84532:${'0x' + '1'.repeat(40)}:${'0x' + '2'.repeat(40)}:0x${'3'.repeat(64)}`,
    );
    expect([missing.status, missing.body.error_code]).toEqual([404, 'payment_not_found']);
    const bad = await http('GET', `${stack.server.mainUrl}/api/external/payments/not-an-id`);
    expect([bad.status, bad.body.error_code]).toEqual([400, 'invalid_request']);
  });

  it('a wallet holding credits calls a tool through sign-in-with-x: no on-chain payment, credits debited once, a signed receipt; the proof is single-use', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const wallet = account.address.toLowerCase();
    const ledger = new LedgerStore(stack.db.models);
    await ledger.grant({ wallet, credits: 100, creditType: 'test' } as never);
    const before = vendor.calls.length;
    const challenge = (await http('POST', toolUrl(), { body: { n: 3 } })).body;
    const origin = new URL(stack.config.publicBaseUrl).origin;
    const header = await signInWithX(challenge, account, toolUrl(), origin);

    const res = await http('POST', toolUrl(), { body: { n: 3 }, headers: { 'sign-in-with-x': header } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, response: { echo: { n: 3 } }, credits_charged: 5 });
    expect((await ledger.balance(wallet)).balance).toBe(95);
    expect(await stack.db.models.x402Payments.countDocuments({ payer: wallet })).toBe(0);
    expect(vendor.calls.length - before).toBe(1);
    const check = await verifyReceipt(res.body.receipt, { signer, payer: wallet });
    expect(check).toMatchObject({ ok: true, payload: { transaction: `credits:${res.body.transaction_id}` } });
    expect(receiptFromHeader(res.headers.get('payment-response'))).toEqual(res.body.receipt);

    const replay = await http('POST', toolUrl(), { body: { n: 3 }, headers: { 'sign-in-with-x': header } });
    expect([replay.status, replay.body.code]).toEqual([401, 'siwx_nonce_used']);

    // A proof signed by someone else for this wallet, or for another resource, is refused; nothing is charged.
    const other = privateKeyToAccount(generatePrivateKey());
    const decoded = JSON.parse(
      Buffer.from(await signInWithX(challenge, other, toolUrl(), origin), 'base64').toString(),
    );
    const forged = Buffer.from(JSON.stringify({ ...decoded, address: getAddress(wallet) })).toString('base64');
    const refused = await http('POST', toolUrl(), { body: { n: 3 }, headers: { 'sign-in-with-x': forged } });
    expect([refused.status, refused.body.code]).toEqual([401, 'siwx_invalid']);
    const malformed = await http('POST', toolUrl(), { body: { n: 3 }, headers: { 'sign-in-with-x': 'not base64!' } });
    expect([malformed.status, malformed.body.code]).toEqual([400, 'siwx_malformed']);
    expect((await ledger.balance(wallet)).balance).toBe(95);
    expect(vendor.calls.length - before).toBe(1);
  });

  it('a signed credits invoke answers a signed receipt of its debit (body and PAYMENT-RESPONSE) that verifyReceipt accepts, and refuses tampered', async () => {
    const agent = new TestAgent(stack.server.mainUrl);
    await agent.startSession();
    await new LedgerStore(stack.db.models).grant({ wallet: agent.wallet, credits: 20, creditType: 'test' } as never);
    const parameters = { n: 4 };
    const env = await signToolInvoke({
      account: agent.account,
      sessionNonce: agent.sessionNonce,
      productSlug: 'ext',
      actionSlug: 'run',
      parameters,
    });
    const res = await http('POST', toolUrl(), { body: { ...env, parameters } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, response: { echo: parameters }, credits_charged: 5 });
    const check = await verifyReceipt(res.body.receipt, { signer, payer: agent.wallet });
    expect(check).toMatchObject({
      ok: true,
      payload: {
        transaction: `credits:${res.body.transaction_id}`,
        resourceUrl: `${stack.config.publicBaseUrl}/api/external/tools/ext/actions/run/invoke`,
      },
    });
    expect(receiptFromHeader(res.headers.get('payment-response'))).toEqual(res.body.receipt);
    const tampered = structuredClone(res.body.receipt);
    tampered.payload.payer = merchant.toLowerCase();
    expect((await verifyReceipt(tampered, { signer })).ok).toBe(false);
    expect((await verifyReceipt(res.body.receipt, { signer, payer: merchant })).ok).toBe(false);
  });

  it('/discovery/resources lists every priced action and the credit packs with their accepts; bad queries are clear 400s; /supported lists the kinds', async () => {
    const all: any[] = [];
    for (let offset = 0; ; offset += 2) {
      const page = await http('GET', `${stack.server.mainUrl}/discovery/resources?type=http&limit=2&offset=${offset}`);
      expect(page.status).toBe(200);
      all.push(...page.body.items);
      if (offset + 2 >= page.body.pagination.total) break;
    }
    const catalog = await http('GET', `${stack.server.mainUrl}/api/external/tools?page_size=1000`);
    const priced = catalog.body.tools.flatMap((t: any) =>
      t.actions.filter((a: any) => a.x402_price_usd).map((a: any) => a.invoke_url),
    );
    expect(priced.length).toBeGreaterThan(0);
    const listed = all.map((i) => i.resource);
    for (const url of priced) expect(listed).toContain(url);
    const ext = all.find((i) => i.resource.endsWith('/api/external/tools/ext/actions/run/invoke'));
    expect(ext).toMatchObject({
      type: 'http',
      x402Version: 2,
      accepts: [{ scheme: 'exact', network: 'eip155:84532', amount: PRICE.toString(), payTo: merchant }],
      extensions: { bazaar: { info: { input: { type: 'http', method: 'POST', bodyType: 'json' } } } },
    });
    const packs = all.filter((i) => i.resource.endsWith('/api/external/credits/purchase'));
    expect(packs.map((p) => p.accepts[0].amount)).toEqual(['5000000', '10000000', '50000000', '100000000']);

    for (const q of ['limit=101', 'limit=0', 'offset=-1', 'type=ftp', 'limit=abc']) {
      const res = await http('GET', `${stack.server.mainUrl}/discovery/resources?${q}`);
      expect([q, res.status, res.body.error_code]).toEqual([q, 400, 'invalid_discovery_query']);
    }
    const supported = await http('GET', `${stack.server.mainUrl}/supported`);
    expect(supported.body).toMatchObject({
      kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }],
      extensions: expect.arrayContaining(['bazaar', 'payment-identifier', 'sign-in-with-x', 'offer-receipt']),
    });
  });

  it('the CLI: payments status, and receipts verify (exit 0 for the receipt, non-zero for a tampered one)', async () => {
    expect(paidAnswer).toBeDefined();
    const runCli = async (args: string[]) => {
      const out = new PassThrough();
      let text = '';
      out.on('data', (b: Buffer) => (text += b.toString()));
      const code = await main([...args, '--json'], {
        stdout: out,
        stderr: out,
        env: { AGENT_COMMERCE_URL: stack.server.mainUrl, AGENT_COMMERCE_API_URL: stack.server.apiUrl },
      });
      return { code, text };
    };
    const status = await runCli(['payments', 'status', paidAnswer!.payment_id]);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.text)).toMatchObject({ status: 'settled', transaction: paidAnswer!.transaction });

    const dir = mkdtempSync(path.join(tmpdir(), 'receipts-'));
    const good = path.join(dir, 'good.json');
    writeFileSync(good, JSON.stringify(paidAnswer!.receipt));
    const verified = await runCli(['receipts', 'verify', good]);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.text)).toMatchObject({ valid: true, transaction: paidAnswer!.transaction });
    const r = paidAnswer!.receipt as { payload: Record<string, unknown> };
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...r, payload: { ...r.payload, resourceUrl: 'https://evil.example/x' } }));
    const refused = await runCli(['receipts', 'verify', bad]);
    expect(refused.code).not.toBe(0);
    expect(refused.text).toContain('receipt refused');
  });
});
