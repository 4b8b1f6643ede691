import { wrapFetchWithPayment } from '@x402/fetch';
import { type Address, getAddress } from 'viem';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { DEV_ACCOUNT_INDEX, devAccount } from '../../shared/payments/chain/dev-accounts';
import { decodePaymentRequired, decodePaymentResponse } from '../../shared/payments/x402/challenge';
import { QUEUES } from '../../workers/queues';
import { runWorkers } from '../../workers/run-workers';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { proofFrom } from '../support/public-authorization';
import { startTestStack, TestStack } from '../support/stack';

/** The settled purchase's full answer: the same payment with its payer's sign-in-with-x proof (docs/x402.md, "Payer proof"). */
async function asPayer(url: string, body: unknown, header: string, payer: TestPayer, publicBaseUrl: string) {
  const status = await http('POST', url, { body, headers: { 'x-payment': header } });
  const proof = await proofFrom(status.body, payer.account, publicBaseUrl);
  return http('POST', url, { body, headers: { 'x-payment': header, 'sign-in-with-x': proof } });
}

const merchant = devAccount(DEV_ACCOUNT_INDEX.merchant).address as Address;

function purchaseBody(wallet: string, extra: Record<string, unknown> = {}) {
  return { wallet_address: wallet, credits: 500, payment_method: 'x402', chain_id: 84532, token: 'USDC', ...extra };
}

describe('credit purchase over x402 with real settlement on the local chain', () => {
  let stack: TestStack;
  let url: string;
  let ledger: LedgerStore;
  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    url = `${stack.server.mainUrl}/api/external/credits/purchase`;
    ledger = new LedgerStore(stack.db.models);
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('answers the first call with a 402 challenge in the body and the PAYMENT-REQUIRED header', async () => {
    const res = await http('POST', url, { body: purchaseBody('0x' + '1'.repeat(40)) });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      x402Version: 2,
      error: 'payment_required',
      resource: { url: `${stack.config.publicBaseUrl}/api/external/credits/purchase`, mimeType: 'application/json' },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:84532',
          amount: '5000000',
          asset: getAddress(TestPayer.tokenAddress()),
          payTo: merchant,
          extra: { name: 'USDC', version: '2' },
        },
      ],
    });
    const header = decodePaymentRequired(res.headers.get('payment-required'));
    expect(header.ok && header.value).toEqual(res.body);
  });

  it('is paid by the official @x402/fetch client: settles on chain once and grants the credits', async () => {
    const payer = new TestPayer();
    await payer.fund(20);
    const wallet = '0x' + 'a'.repeat(40);
    const paidFetch = wrapFetchWithPayment(fetch, payer.client());
    const res = await paidFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(purchaseBody(wallet, { credits: 1000 })),
    });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body).toMatchObject({
      success: true,
      data: { status: 'completed', wallet_address: wallet, credits: 1000, balance: 1000 },
      x402: {
        settled: true,
        network: 'eip155:84532',
        settlement_recorded: true,
        payment: {
          token: 'USDC',
          amount_base_units: '10000000',
          amount_usd: 10,
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

    expect(await payer.balance()).toBe(10_000_000n);
    expect(await payer.paidIn(body.x402.transaction, merchant)).toBe(10_000_000n);
    const { grants } = await ledger.history(wallet, 10);
    expect(grants).toEqual([
      expect.objectContaining({
        credit_type: 'x402_purchase',
        amount_credits: 1000,
        remaining_credits: 1000,
        source_metadata: expect.objectContaining({
          tx_hash: body.x402.transaction,
          network: 'eip155:84532',
          payer: payer.account.address.toLowerCase(),
        }),
      }),
    ]);
    expect(grants[0].expires_at).toBeInstanceOf(Date);
  });

  it('answers the same payment again with the recorded result: one settlement, one grant', async () => {
    const payer = new TestPayer();
    await payer.fund(10);
    const wallet = '0x' + 'b'.repeat(40);
    const challenge = (await http('POST', url, { body: purchaseBody(wallet) })).body;
    const header = await payer.paymentHeader(challenge);
    const first = await http('POST', url, { body: purchaseBody(wallet), headers: { 'x-payment': header } });
    const again = await http('POST', url, { body: purchaseBody(wallet), headers: { 'payment-signature': header } });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body.x402.transaction).toBe(first.body.x402.transaction);

    // A payer that lost the answer retries with the transaction hash alone: the recorded status, nothing about the wallet.
    const byTx = await http('POST', url, {
      body: purchaseBody(wallet, { transaction_hash: first.body.x402.transaction.toUpperCase().replace('0X', '0x') }),
    });
    expect([byTx.status, byTx.body.data]).toEqual([
      200,
      { status: 'completed', payment_id: first.body.data.payment_id, wallet_address: wallet, credits: 500 },
    ]);
    const otherWallet = await http('POST', url, {
      body: purchaseBody('0x' + 'f'.repeat(40), { transaction_hash: first.body.x402.transaction }),
    });
    expect([otherWallet.status, otherWallet.body.error_code]).toEqual([409, 'payment_already_used']);
    const unknownTx = await http('POST', url, {
      body: purchaseBody(wallet, { transaction_hash: '0x' + '0'.repeat(64) }),
    });
    expect(unknownTx.status).toBe(402);

    expect((await ledger.balance(wallet)).balance).toBe(500);
    expect(await payer.balance()).toBe(5_000_000n);
  });

  it('is idempotent on request_id: a second payment for the same request is never settled', async () => {
    const payer = new TestPayer();
    await payer.fund(10);
    const wallet = '0x' + 'c'.repeat(40);
    const body = purchaseBody(wallet, { request_id: 'buy-1', payer_wallet_address: payer.account.address });
    const challenge = (await http('POST', url, { body })).body;
    const first = await http('POST', url, { body, headers: { 'x-payment': await payer.paymentHeader(challenge) } });
    expect(first.status).toBe(200);
    // Another payment for the same request is not the one that paid: the status only, and it is never settled.
    const second = await http('POST', url, { body, headers: { 'x-payment': await payer.paymentHeader(challenge) } });
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual({
      status: 'completed',
      payment_id: first.body.data.payment_id,
      wallet_address: wallet,
      credits: 500,
    });
    const noPayment = await http('POST', url, { body });
    expect(noPayment.status).toBe(200);
    expect(noPayment.body.data.payment_id).toBe(first.body.data.payment_id);
    expect(noPayment.body.data.balance).toBeUndefined();
    expect(await payer.balance()).toBe(5_000_000n);
    expect((await ledger.balance(wallet)).balance).toBe(500);
  });

  it('refuses bad input with clear errors and settles nothing', async () => {
    const payer = new TestPayer();
    await payer.fund(10);
    const wallet = '0x' + 'd'.repeat(40);

    const notMultiple = await http('POST', url, { body: purchaseBody(wallet, { credits: 501 }) });
    expect(notMultiple.status).toBe(422);
    expect(notMultiple.body.detail[0]).toMatchObject({ loc: ['body', 'credits'], type: 'number.multiple' });

    const offMode = await http('POST', url, { body: purchaseBody(wallet, { chain_id: 8453 }) });
    expect([offMode.status, offMode.body.error_code]).toEqual([400, 'chain_not_available']);

    const mixed = await http('POST', url, {
      body: { ...purchaseBody(wallet), session_nonce: 'sn_x', signature: '0x' + '1'.repeat(130) },
      headers: {
        'payment-signature': await payer.paymentHeader((await http('POST', url, { body: purchaseBody(wallet) })).body),
      },
    });
    expect([mixed.status, mixed.body.error_code, mixed.body.details]).toEqual([
      400,
      'mixed_payment_modes',
      { envelope_fields: ['signature', 'session_nonce'] },
    ]);

    const malformed = await http('POST', url, {
      body: purchaseBody(wallet),
      headers: { 'x-payment': 'not-base64-json' },
    });
    expect([malformed.status, malformed.body.error_code]).toEqual([400, 'malformed_payment']);

    // Paid for 500 credits, asked for 1000: the amount does not match what is bought.
    const cheap = (await http('POST', url, { body: purchaseBody(wallet) })).body;
    const underpaid = await http('POST', url, {
      body: purchaseBody(wallet, { credits: 1000 }),
      headers: { 'x-payment': await payer.paymentHeader(cheap) },
    });
    expect(underpaid.status).toBe(402);
    expect(underpaid.body.error).toBe('amount_mismatch');

    const other = new TestPayer();
    const wrongPayer = await http('POST', url, {
      body: purchaseBody(wallet, { payer_wallet_address: other.account.address }),
      headers: { 'x-payment': await payer.paymentHeader(cheap) },
    });
    expect([wrongPayer.status, wrongPayer.body.error_code]).toEqual([400, 'payer_mismatch']);

    const broke = new TestPayer();
    const poor = await http('POST', url, {
      body: purchaseBody(wallet),
      headers: { 'x-payment': await broke.paymentHeader(cheap) },
    });
    expect([poor.status, poor.body.error]).toEqual([402, 'insufficient_balance']);

    expect(await payer.balance()).toBe(10_000_000n);
    expect((await ledger.balance(wallet)).balance).toBe(0);
  });
});

describe('settlement outlives the request: no worker at first', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ env: { X402_SETTLE_WAIT_MS: '1500' } });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('answers 202 while settling, 409 for the same payment in flight, then lands the credits once a worker runs', async () => {
    const url = `${stack.server.mainUrl}/api/external/credits/purchase`;
    const payer = new TestPayer();
    await payer.fund(10);
    const wallet = '0x' + 'e'.repeat(40);
    const challenge = (await http('POST', url, { body: purchaseBody(wallet) })).body;
    const header = await payer.paymentHeader(challenge);

    const pending = await http('POST', url, { body: purchaseBody(wallet), headers: { 'x-payment': header } });
    expect(pending.status).toBe(202);
    expect(pending.body).toMatchObject({ success: false, status: 'settling', data: { status: 'settling' } });
    const inFlight = await http('POST', url, { body: purchaseBody(wallet), headers: { 'x-payment': header } });
    expect([inFlight.status, inFlight.body.error_code]).toEqual([409, 'payment_in_progress']);
    expect(await payer.balance()).toBe(10_000_000n);

    const workers = await runWorkers(
      { config: stack.config, db: stack.db, temporal: stack.temporal, identity: 'late-worker' },
      [...QUEUES],
      stack.config.temporalAddress,
    );
    try {
      const ledger = new LedgerStore(stack.db.models);
      for (const deadline = Date.now() + 60_000; Date.now() < deadline && (await ledger.balance(wallet)).balance === 0;)
        await new Promise((r) => setTimeout(r, 200));
      expect((await ledger.balance(wallet)).balance).toBe(500);
      expect(await payer.balance()).toBe(5_000_000n);
      const done = await asPayer(url, purchaseBody(wallet), header, payer, stack.config.publicBaseUrl);
      expect(done.status).toBe(200);
      expect(done.body.data.balance).toBe(500);
      // The grant lands inside the settlement; the final status is written when the workflow closes.
      const handle = stack.temporal.client.workflow.getHandle(`x402-settlement:${done.body.data.payment_id}`);
      await handle.result();
      const desc = await handle.describe();
      const attrs = Object.fromEntries(desc.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value]));
      expect(attrs).toMatchObject({
        FlowKind: 'x402_settlement',
        FlowStatus: 'completed',
        Payer: payer.account.address.toLowerCase(),
        Network: 'eip155:84532',
        AmountBaseUnits: '5000000',
      });
    } finally {
      await workers.shutdown();
    }
  });
});

describe('Temporal unreachable when a payment arrives', () => {
  it('answers 503, loses nothing, and the retry of the same payment settles it once Temporal is back', async () => {
    const down = await startTestStack({ env: { TEMPORAL_ADDRESS: '127.0.0.1:1' }, keepDatabase: true });
    const up = await startTestStack({ workers: true });
    try {
      const payer = new TestPayer();
      await payer.fund(10);
      const wallet = '0x' + '9'.repeat(40);
      const downUrl = `${down.server.mainUrl}/api/external/credits/purchase`;
      const challenge = (await http('POST', downUrl, { body: purchaseBody(wallet) })).body;
      expect(challenge.x402Version).toBe(2);
      const header = await payer.paymentHeader(challenge);

      const refused = await http('POST', downUrl, { body: purchaseBody(wallet), headers: { 'x-payment': header } });
      expect([refused.status, refused.body.error_code]).toEqual([503, 'workflow_engine_unavailable']);
      expect(await payer.balance()).toBe(10_000_000n);

      const upUrl = `${up.server.mainUrl}/api/external/credits/purchase`;
      const again = await http('POST', upUrl, { body: purchaseBody(wallet), headers: { 'x-payment': header } });
      expect([again.status, again.body.error_code]).toEqual([409, 'payment_in_progress']);
      let done = again;
      // A settlement on a loaded machine (workflow, chain, grant) can take well over 10 s.
      for (const deadline = Date.now() + 60_000; Date.now() < deadline && done.status !== 200;) {
        await new Promise((r) => setTimeout(r, 200));
        done = await http('POST', upUrl, { body: purchaseBody(wallet), headers: { 'x-payment': header } });
      }
      expect(done.status).toBe(200);
      const full = await asPayer(upUrl, purchaseBody(wallet), header, payer, up.config.publicBaseUrl);
      expect(full.body.data.balance).toBe(500);
      expect(await payer.balance()).toBe(5_000_000n);
    } finally {
      await down.stop();
      await up.stop();
    }
  }, 120_000);
});
