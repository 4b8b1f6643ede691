import { createWalletClient, http as viemHttp } from 'viem';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { loadTokenArtifact } from '../../shared/payments/chain/token-artifact';
import { decodePaymentRequired, encodePaymentPayload } from '../../shared/payments/x402/challenge';
import { viemChain } from '../../shared/payments/x402/networks';
import { settlementWorkflowId } from '../../temporal/x402-settlement/ids';
import { QUEUES } from '../../workers/queues';
import { runWorkers } from '../../workers/run-workers';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { proofFrom } from '../support/public-authorization';
import { startTestStack, TestStack } from '../support/stack';

function purchaseBody(wallet: string, extra: Record<string, unknown> = {}) {
  return { wallet_address: wallet, credits: 500, payment_method: 'x402', chain_id: 84532, token: 'USDC', ...extra };
}

/** A 402 that carries the x402 challenge in the body and in PAYMENT-REQUIRED, with `error` set. */
function expectChallenge(res: { status: number; body: any; headers: Headers }, error: string) {
  expect(res.status).toBe(402);
  expect(res.body).toMatchObject({
    x402Version: 2,
    error,
    accepts: [expect.objectContaining({ scheme: 'exact', network: 'eip155:84532' })],
  });
  const header = decodePaymentRequired(res.headers.get('payment-required'));
  expect(header.ok && header.value).toMatchObject({ x402Version: 2, error });
}

describe('purchases reveal nothing to strangers and bind their request id', () => {
  let stack: TestStack;
  let url: string;
  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    url = `${stack.server.mainUrl}/api/external/credits/purchase`;
  });
  afterAll(async () => {
    await stack.stop();
  });

  it("shows balance and grant only to the caller whose payment settled and to the payer's proof; a replay by request_id, transaction_hash or the payment alone gets the status", async () => {
    const payer = new TestPayer();
    await payer.fund(10);
    const wallet = '0x' + '21'.repeat(20);
    const body = purchaseBody(wallet, { request_id: 'priv-1' });
    const header = await payer.paymentHeader((await http('POST', url, { body })).body);
    const paid = await http('POST', url, { body, headers: { 'x-payment': header } });
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ status: 'completed', balance: 500, grant_id: expect.any(String) });

    const statusOnly = {
      status: 'completed',
      payment_id: paid.body.data.payment_id,
      wallet_address: wallet,
      credits: 500,
    };
    for (const replay of [body, purchaseBody(wallet, { transaction_hash: paid.body.x402.transaction })]) {
      const res = await http('POST', url, { body: replay });
      expect([res.status, res.body.data]).toEqual([200, statusOnly]);
      expect(res.body.x402).toBeUndefined();
      expect(res.headers.get('payment-response')).toBeNull();
      expect(res.text).not.toMatch(/"balance"|"grant_id"/);
    }
    // The settled payment itself is public on chain: alone, the status and its receipt; the full
    // answer only with the payer's proof beside it.
    const withPayment = await http('POST', url, { body, headers: { 'x-payment': header } });
    expect([withPayment.status, withPayment.body.data]).toEqual([200, statusOnly]);
    expect(withPayment.body.x402.receipt).toEqual(paid.body.x402.receipt);
    const proven = await http('POST', url, {
      body,
      headers: {
        'x-payment': header,
        'sign-in-with-x': await proofFrom(withPayment.body, payer.account, stack.config.publicBaseUrl),
      },
    });
    expect(proven.body.data).toMatchObject({ balance: 500, grant_id: paid.body.data.grant_id });
  });

  it('refuses a request_id reused with another body: 409 request_id_conflict, nothing settled', async () => {
    const payer = new TestPayer();
    await payer.fund(20);
    const wallet = '0x' + '22'.repeat(20);
    const body = purchaseBody(wallet, { request_id: 'bind-1', payer_wallet_address: payer.account.address });
    const paid = await http('POST', url, {
      body,
      headers: { 'x-payment': await payer.paymentHeader((await http('POST', url, { body })).body) },
    });
    expect(paid.status).toBe(200);

    const other = new TestPayer();
    for (const changed of [
      { credits: 1000 },
      { payer_wallet_address: other.account.address },
      { wallet_address: '0x' + '23'.repeat(20) },
      { payer_wallet_address: undefined },
    ]) {
      const res = await http('POST', url, { body: { ...body, ...changed }, headers: { 'x-request-id': 'conflict' } });
      expect([res.status, res.body.error_code, res.body.request_id]).toEqual([409, 'request_id_conflict', 'conflict']);
    }
    // Even with a valid payment for the new body, nothing is settled under a bound request id.
    const bigger = { ...body, credits: 1000 };
    const challenge = (await http('POST', url, { body: purchaseBody(wallet, { credits: 1000 }) })).body;
    const res = await http('POST', url, {
      body: bigger,
      headers: { 'x-payment': await payer.paymentHeader(challenge) },
    });
    expect([res.status, res.body.error_code]).toEqual([409, 'request_id_conflict']);
    expect(await payer.balance()).toBe(15_000_000n);
  });

  it('takes X-PAYMENT over PAYMENT-SIGNATURE when both come', async () => {
    const payer = new TestPayer();
    await payer.fund(10);
    const wallet = '0x' + '24'.repeat(20);
    const header = await payer.paymentHeader((await http('POST', url, { body: purchaseBody(wallet) })).body);
    const badAlias = await http('POST', url, {
      body: purchaseBody(wallet),
      headers: { 'x-payment': 'garbage', 'payment-signature': header },
    });
    expect([badAlias.status, badAlias.body.error_code]).toEqual([400, 'malformed_payment']);
    const paid = await http('POST', url, {
      body: purchaseBody(wallet),
      headers: { 'x-payment': header, 'payment-signature': 'garbage' },
    });
    expect(paid.status).toBe(200);
  });

  it('answers 400 malformed_payment, never 500, for any field of the wrong type', async () => {
    const payer = new TestPayer();
    const wallet = '0x' + '25'.repeat(20);
    const valid = await payer
      .client()
      .createPaymentPayload((await http('POST', url, { body: purchaseBody(wallet) })).body);
    const mutate = (fn: (p: any) => void) => {
      const copy = JSON.parse(JSON.stringify(valid));
      fn(copy);
      return encodePaymentPayload(copy);
    };
    const cases: Record<string, string> = {
      'value a number': mutate((p) => (p.payload.authorization.value = 5000000)),
      'signature an object': mutate((p) => (p.payload.signature = { r: '0x1' })),
      'accepted not an object': mutate((p) => (p.accepted = 'exact')),
      'accepted.network a number': mutate((p) => (p.accepted.network = 84532)),
      'nonce a number': mutate((p) => (p.payload.authorization.nonce = 7)),
      'from not an address': mutate((p) => (p.payload.authorization.from = 'me')),
      'validBefore negative': mutate((p) => (p.payload.authorization.validBefore = '-1')),
      'authorization an array': mutate((p) => (p.payload.authorization = [])),
      'payload null': mutate((p) => (p.payload = null)),
      'x402Version a string': mutate((p) => (p.x402Version = '2')),
      'a JSON array': Buffer.from('[]').toString('base64'),
      'an empty object': Buffer.from('{}').toString('base64'),
      'a JSON string': Buffer.from('"x"').toString('base64'),
    };
    for (const [label, header] of Object.entries(cases)) {
      for (const name of ['x-payment', 'payment-signature']) {
        const res = await http('POST', url, {
          body: purchaseBody(wallet, { request_id: `fuzz-${label.replace(/\W/g, '')}` }),
          headers: { [name]: header },
        });
        expect([label, res.status, res.body?.error_code]).toEqual([label, 400, 'malformed_payment']);
      }
    }
  });
});

describe('every 402 of the purchase carries the challenge, and a 202 never reads as credited', () => {
  let stack: TestStack;
  let url: string;
  beforeAll(async () => {
    stack = await startTestStack({ env: { X402_SETTLE_WAIT_MS: '300' } });
    url = `${stack.server.mainUrl}/api/external/credits/purchase`;
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('a failed settlement answers its retries with the challenge and the failure in error', async () => {
    const payer = new TestPayer();
    await payer.fund(5);
    await payer.fundGas();
    const wallet = '0x' + '26'.repeat(20);
    const body = purchaseBody(wallet, { request_id: 'fail-1' });
    const header = await payer.paymentHeader((await http('POST', url, { body })).body);
    const pending = await http('POST', url, { body, headers: { 'x-payment': header } });
    expect(pending.status).toBe(202);
    expect(pending.body).toMatchObject({
      success: false,
      status: 'settling',
      data: { status: 'settling', payment_id: expect.any(String) },
    });

    // The payer moves the money away before any worker settles.
    const { abi } = await loadTokenArtifact();
    const wc = createWalletClient({
      account: payer.account,
      chain: viemChain(84532, TestPayer.rpcUrl()),
      transport: viemHttp(TestPayer.rpcUrl()),
    });
    await wc.writeContract({
      address: TestPayer.tokenAddress(),
      abi,
      functionName: 'transfer',
      args: ['0x000000000000000000000000000000000000dEaD', 5_000_000n],
    });
    const workers = await runWorkers(
      { config: stack.config, db: stack.db, temporal: stack.temporal, identity: 'edges' },
      [...QUEUES],
      stack.config.temporalAddress,
    );
    try {
      const outcome = await stack.temporal.client.workflow
        .getHandle(settlementWorkflowId(pending.body.data.payment_id))
        .result();
      expect(outcome).toMatchObject({ status: 'failed' });
    } finally {
      await workers.shutdown();
    }
    const retry = await http('POST', url, { body, headers: { 'x-payment': header } });
    expectChallenge(
      retry,
      (await stack.db.models.x402Payments.findById(pending.body.data.payment_id).lean())!.error_code!,
    );
    // The request id is free again: asked without a payment, it is the plain challenge.
    expectChallenge(await http('POST', url, { body }), 'payment_required');
    expect((await new LedgerStore(stack.db.models).balance(wallet)).balance).toBe(0);
  });
});

describe('EURC reports its own currency', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ workers: true, env: { X402_LOCAL_TOKEN_SYMBOL: 'EURC' } });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('a purchase paid in EURC shows amount_eur and currency EUR, no amount_usd', async () => {
    const url = `${stack.server.mainUrl}/api/external/credits/purchase`;
    const payer = new TestPayer();
    await payer.fund(10);
    const body = purchaseBody('0x' + '27'.repeat(20), { token: 'EURC' });
    const paid = await http('POST', url, {
      body,
      headers: { 'x-payment': await payer.paymentHeader((await http('POST', url, { body })).body) },
    });
    expect(paid.status).toBe(200);
    expect(paid.body.x402.payment).toMatchObject({
      token: 'EURC',
      currency: 'EUR',
      amount_eur: 5,
      amount_base_units: '5000000',
    });
    expect(paid.body.x402.payment.amount_usd).toBeUndefined();
  });
});
