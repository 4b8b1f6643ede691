import { randomBytes } from 'node:crypto';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { receiptFromHeader } from '../../sdk/src/payments';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { paymentIdentifierKey } from '../../shared/payments/extensions/payment-identifier';
import type { X402PaymentDoc } from '../../shared/payments/models/x402-payment';
import { decodePaymentPayload, encodePaymentPayload } from '../../shared/payments/x402/challenge';
import { ToolRepository } from '../../shared/tools/repository';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { junkPaymentFor, proofFrom, rebuildPaymentFromChain } from '../support/public-authorization';
import { startTestStack, TestStack } from '../support/stack';
import { startScriptedVendor } from '../support/vendor';

jest.setTimeout(180_000);

/** The same payment with the payment-identifier extension's id added (the signature covers only the authorization). */
function withId(header: string, id: string): string {
  const decoded = decodePaymentPayload(header);
  if (!decoded.ok) throw new Error(decoded.message);
  const payload = decoded.value as { extensions?: Record<string, unknown> };
  payload.extensions = { ...payload.extensions, 'payment-identifier': { info: { required: false, id } } };
  return encodePaymentPayload(payload as never);
}

/**
 * Issue 37, items 3, 4 and 5: a settled x402 authorization is public on chain, so it is no
 * credential. Anyone can rebuild it; what it bought goes only to its payer's sign-in-with-x proof.
 */
describe('a public authorization is no credential: payer proofs on the real stack (store, workers, chain, vendor)', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  /** What the vendor answered each call: a secret only the paying call may see. */
  const secrets: string[] = [];
  const toolUrl = () => `${stack.server.mainUrl}/api/external/tools/proof/actions/run/invoke`;
  const purchaseUrl = () => `${stack.server.mainUrl}/api/external/credits/purchase`;
  const statusUrl = (id: string) => `${stack.server.mainUrl}/api/external/payments/${id}`;

  async function paidCall(payer: TestPayer, params: Record<string, unknown>) {
    const challenge = (await http('POST', toolUrl(), { body: params })).body;
    const header = await payer.paymentHeader(challenge);
    const res = await http('POST', toolUrl(), { body: params, headers: { 'x-payment': header } });
    return { challenge, header, res };
  }

  beforeAll(async () => {
    stack = await startTestStack({ workers: true, env: { X402_SETTLE_WAIT_MS: '30000' } });
    vendor = await startScriptedVendor((call) => {
      const params = (call.body as { parameters?: { fail?: boolean } }).parameters;
      if (params?.fail) return { status: 500, body: { error: 'vendor broke' } };
      const secret = `secret-${randomBytes(8).toString('hex')}`;
      secrets.push(secret);
      return { status: 200, body: { secret } };
    });
    const repo = new ToolRepository(stack.db.models);
    await repo.createProduct({ slug: 'proof', name: 'proof' });
    await repo.addAction('proof', {
      slug: 'run',
      credits: 5,
      x402_usd: '0.05',
      parameters_schema: {
        type: 'object',
        properties: { n: { type: 'integer' }, fail: { type: 'boolean' } },
        additionalProperties: false,
      },
      runner: { kind: 'http', url: `${vendor.url}/run`, method: 'POST', timeout_ms: 30_000 },
    });
  }, 180_000);
  afterAll(async () => {
    await vendor?.stop();
    await stack?.stop();
  });

  it("a settled tool call's authorization rebuilt from the chain gets its status and receipt, never the result; the payer's proof beside it gets the result", async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    const before = vendor.calls.length;
    const first = await paidCall(payer, { n: 1 });
    expect(first.res.status).toBe(200);
    const secret = first.res.body.response.secret as string;
    const tx = first.res.body.x402.transaction as string;

    // An observer rebuilds the payment from the public transferWithAuthorization call.
    const rebuilt = await rebuildPaymentFromChain(tx, first.challenge);
    expect(decodePaymentPayload(rebuilt).ok).toBe(true);
    for (const header of [rebuilt, first.header]) {
      const replay = await http('POST', toolUrl(), { body: { n: 1 }, headers: { 'x-payment': header } });
      expect(replay.status).toBe(200);
      expect(replay.body).toMatchObject({
        success: true,
        status: 'settled',
        payment_id: first.res.body.x402.payment_id,
        x402: { settled: true, transaction: tx },
      });
      expect(replay.body.response).toBeUndefined();
      expect(replay.text).not.toContain(secret);
      // The receipt: in the body and in PAYMENT-RESPONSE, the very one the paying call got.
      expect(replay.body.x402.receipt).toEqual(first.res.body.x402.receipt);
      expect(receiptFromHeader(replay.headers.get('payment-response'))).toEqual(first.res.body.x402.receipt);
      expect(replay.body.extensions['sign-in-with-x'].info.uri).toBe(
        `${stack.config.publicBaseUrl}/api/external/tools/proof/actions/run/invoke`,
      );
    }
    const status = (await http('POST', toolUrl(), { body: { n: 1 }, headers: { 'x-payment': rebuilt } })).body;

    // The observer's own proof is not the payer's: refused, nothing shown.
    const observer = privateKeyToAccount(generatePrivateKey());
    const theirs = await http('POST', toolUrl(), {
      body: { n: 1 },
      headers: {
        'x-payment': rebuilt,
        'sign-in-with-x': await proofFrom(status, observer, stack.config.publicBaseUrl),
      },
    });
    expect([theirs.status, theirs.body.code, theirs.body.details?.reason]).toEqual([
      401,
      'siwx_invalid',
      'siwx_not_payer',
    ]);
    expect(theirs.text).not.toContain(secret);

    // The payer's proof beside the payment (its own copy or the rebuilt one): the recorded result, once per proof.
    const proof = await proofFrom(status, payer.account, stack.config.publicBaseUrl);
    const mine = await http('POST', toolUrl(), {
      body: { n: 1 },
      headers: { 'x-payment': rebuilt, 'sign-in-with-x': proof },
    });
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual(first.res.body);
    const again = await http('POST', toolUrl(), {
      body: { n: 1 },
      headers: { 'x-payment': first.header, 'sign-in-with-x': proof },
    });
    expect([again.status, again.body.code]).toEqual([401, 'siwx_nonce_used']);
    // A proof beside a payment that was never made is a second way to pay: refused before anything is verified.
    const fresh = await payer.paymentHeader(first.challenge);
    const mixed = await http('POST', toolUrl(), {
      body: { n: 1 },
      headers: {
        'x-payment': fresh,
        'sign-in-with-x': await proofFrom(status, payer.account, stack.config.publicBaseUrl),
      },
    });
    expect([mixed.status, mixed.body.code]).toEqual([400, 'mixed_payment_modes']);

    expect(vendor.calls.length - before).toBe(1);
    expect(await stack.db.models.x402Payments.countDocuments({ payer: payer.account.address.toLowerCase() })).toBe(1);
    expect(await payer.balance()).toBe(1_000_000n - 50_000n);
  });

  it("a settled purchase's authorization rebuilt from the chain gets the status and receipt, never the balance; another body is 409; the payer's proof gets the full answer", async () => {
    const payer = new TestPayer();
    await payer.fund(5);
    const wallet = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
    const body = { wallet_address: wallet, credits: 500, payment_method: 'x402', chain_id: 84532, token: 'USDC' };
    const challenge = (await http('POST', purchaseUrl(), { body })).body;
    const first = await http('POST', purchaseUrl(), {
      body,
      headers: { 'x-payment': await payer.paymentHeader(challenge) },
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ status: 'completed', balance: 500, grant_id: expect.any(String) });
    await new LedgerStore(stack.db.models).grant({ wallet, credits: 77, creditType: 'test' } as never);

    const rebuilt = await rebuildPaymentFromChain(first.body.x402.transaction, challenge);
    const replay = await http('POST', purchaseUrl(), { body, headers: { 'x-payment': rebuilt } });
    expect(replay.status).toBe(200);
    expect(replay.body.data).toEqual({
      status: 'completed',
      payment_id: first.body.data.payment_id,
      wallet_address: wallet,
      credits: 500,
    });
    // 577 as a value of its own, not three digits inside a hex signature or hash.
    expect(replay.text).not.toMatch(/"balance"|"grant_id"|[^0-9a-zA-Z]577[^0-9a-zA-Z]/);
    expect(replay.body.x402.receipt).toEqual(first.body.x402.receipt);
    expect(receiptFromHeader(replay.headers.get('payment-response'))).toEqual(first.body.x402.receipt);

    // Another body (an observer guessing which wallet it credited) learns nothing: the payment paid for another purchase.
    const guess = await http('POST', purchaseUrl(), {
      body: { ...body, wallet_address: '0x' + '5e'.repeat(20) },
      headers: { 'x-payment': rebuilt },
    });
    expect([guess.status, guess.body.error_code]).toEqual([409, 'payment_already_used']);
    expect(guess.text).not.toContain(wallet);

    // The payer's proof for the purchase URL, beside the payment: the full answer, the balance read now.
    const proof = await proofFrom(replay.body, payer.account, stack.config.publicBaseUrl);
    const full = await http('POST', purchaseUrl(), {
      body,
      headers: { 'x-payment': rebuilt, 'sign-in-with-x': proof },
    });
    expect(full.status).toBe(200);
    expect(full.body.data).toMatchObject({ status: 'completed', balance: 577, grant_id: first.body.data.grant_id });
    expect(await payer.balance()).toBe(0n);
  });

  it('the status oracle shows anyone what the chain shows (no resource, no purpose); the payer sees the rest with its proof', async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    const { res } = await paidCall(payer, { n: 3 });
    expect(res.status).toBe(200);
    const { payment_id: paymentId, transaction: tx } = res.body.x402 as { payment_id: string; transaction: string };
    const open = await http('GET', statusUrl(paymentId));
    expect(open.status).toBe(200);
    expect(open.body.data).toEqual({
      payment_id: paymentId,
      status: 'settled',
      network: 'eip155:84532',
      asset: expect.stringMatching(new RegExp(`^${TestPayer.tokenAddress()}$`, 'i')),
      token: 'USDC',
      amount_base_units: '50000',
      payer: payer.account.address.toLowerCase(),
      pay_to: expect.any(String),
      transaction: tx,
      block_number: expect.any(String),
      valid_before: expect.any(String),
      error: null,
      settled_at: expect.any(String),
    });
    expect(open.text).not.toMatch(/tool_call|\/tools\/proof|resource_url|purpose/);

    // Another wallet's proof is refused; a proof signed for the tool's URL does not open the status.
    const observer = privateKeyToAccount(generatePrivateKey());
    const theirs = await http('GET', statusUrl(paymentId), {
      headers: { 'sign-in-with-x': await proofFrom(open.body, observer, stack.config.publicBaseUrl) },
    });
    expect([theirs.status, theirs.body.error_code]).toEqual([401, 'siwx_invalid']);
    const toolChallenge = (await http('POST', toolUrl(), { body: { n: 2 } })).body;
    const wrongUri = await http('GET', statusUrl(paymentId), {
      headers: { 'sign-in-with-x': await proofFrom(toolChallenge, payer.account, stack.config.publicBaseUrl) },
    });
    expect([wrongUri.status, wrongUri.body.error_code]).toEqual([401, 'siwx_invalid']);

    const mine = await http('GET', statusUrl(paymentId), {
      headers: { 'sign-in-with-x': await proofFrom(open.body, payer.account, stack.config.publicBaseUrl) },
    });
    expect(mine.status).toBe(200);
    expect(mine.body.data).toMatchObject({
      ...open.body.data,
      purpose: 'tool_call',
      resource_url: `${stack.config.publicBaseUrl}/api/external/tools/proof/actions/run/invoke`,
      settlement_status: 'completed',
      created_at: expect.any(String),
    });
    expect(mine.body.extensions).toBeUndefined();

    // A call whose vendor failed: the public view says it was not settled, not why.
    const failer = new TestPayer();
    await failer.fund(1);
    const failed = await paidCall(failer, { fail: true });
    expect(failed.res.status).toBe(502);
    const failedId = (await stack.db.models.x402Payments
      .findOne({ payer: failer.account.address.toLowerCase() })
      .lean<X402PaymentDoc>())!._id;
    const shown = await http('GET', statusUrl(failedId));
    expect(shown.body.data).toMatchObject({ status: 'failed', error: { code: 'not_settled' } });
    expect(shown.text).not.toContain('vendor');
    const own = await http('GET', statusUrl(failedId), {
      headers: { 'sign-in-with-x': await proofFrom(shown.body, failer.account, stack.config.publicBaseUrl) },
    });
    expect(own.body.data).toMatchObject({ status: 'failed', error: { code: 'vendor_error' } });
  });

  it("a payload that does not verify never takes, nor tells about, a payer's payment identifier", async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    const victim = payer.account.address;
    const id = `victim-${Date.now()}-0001`;
    const challenge = (await http('POST', toolUrl(), { body: { n: 10 } })).body;
    const paid = await http('POST', toolUrl(), {
      body: { n: 10 },
      headers: { 'x-payment': withId(await payer.paymentHeader(challenge), id) },
    });
    expect(paid.status).toBe(200);
    const before = vendor.calls.length;
    const ext = (i: string) => ({ 'payment-identifier': { info: { required: false, id: i } } });

    // Probing: a junk signature naming the payer with its id, for the same call or another, is
    // answered exactly as with an id nobody took: the verification's 402.
    const otherChallenge = (await http('POST', toolUrl(), { body: { n: 11 } })).body;
    const probes = [
      { body: { n: 10 }, header: await junkPaymentFor(victim, challenge, { extensions: ext(id) }) },
      { body: { n: 11 }, header: await junkPaymentFor(victim, otherChallenge, { extensions: ext(id) }) },
      { body: { n: 11 }, header: await junkPaymentFor(victim, otherChallenge, { extensions: ext(`unused-${id}`) }) },
    ];
    const answers = [];
    for (const p of probes) {
      const res = await http('POST', toolUrl(), { body: p.body, headers: { 'x-payment': p.header } });
      answers.push([res.status, res.body.error]);
    }
    expect(answers[2]![0]).toBe(402);
    expect(answers).toEqual([answers[2], answers[2], answers[2]]);

    // Binding: a junk signature over the payer's public (settled) nonce with a new id binds nothing.
    const settledNonce = (await stack.db.models.x402Payments
      .findById(paid.body.x402.payment_id)
      .lean<X402PaymentDoc>())!.authorization.nonce as Hex;
    const squat = `squat-${Date.now()}-00001`;
    const junk = await junkPaymentFor(victim, otherChallenge, { nonce: settledNonce, extensions: ext(squat) });
    const refused = await http('POST', toolUrl(), { body: { n: 11 }, headers: { 'x-payment': junk } });
    expect(refused.status).toBe(409);
    expect(await stack.db.models.paymentIdentifiers.findById(paymentIdentifierKey(victim, squat)).lean()).toBeNull();
    // The payer can still use that id for a call of its own.
    const own = await http('POST', toolUrl(), {
      body: { n: 11 },
      headers: { 'x-payment': withId(await payer.paymentHeader(otherChallenge), squat) },
    });
    expect(own.status).toBe(200);
    expect(vendor.calls.length - before).toBe(1);
  });
});
