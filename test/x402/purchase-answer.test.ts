import { settlementUseCases } from '../../shared/composition/root';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { CreditPurchaseService, type PurchaseRequest } from '../../shared/payments/credit-purchase';
import { InFlightPayments } from '../../shared/payments/in-flight';
import type { X402PaymentDoc } from '../../shared/payments/models/x402-payment';
import { PaymentRepository } from '../../shared/payments/payment-repository';
import { PaymentGate } from '../../shared/payments/service';
import type { SettlementEngine } from '../../shared/payments/settlement-engine';
import { paymentSetup } from '../../shared/payments/x402/setup';
import { createSettlementActivities } from '../../temporal/x402-settlement/activities';
import { settlementEngine } from '../../temporal/x402-settlement/client';
import { rootOf } from '../../workers/deps';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { proofFrom } from '../support/public-authorization';
import { startTestStack, TestStack } from '../support/stack';

/**
 * The paid request is answered from the settlement's outcome (what the completion wrote, the
 * balance the grant wrote) instead of reading the record and the balance again: the answer must
 * be what the store holds, a replay answers from the store, and an outcome without those fields
 * (an older worker's) is answered from the store as before.
 */
/** What the payment gate asks of the settlement engine. */
type GateEngine = Pick<SettlementEngine, 'start' | 'await'>;

function purchaseBody(wallet: string, extra: Record<string, unknown> = {}) {
  return { wallet_address: wallet, credits: 500, payment_method: 'x402', chain_id: 84532, token: 'USDC', ...extra };
}

/** The record's fields the settlement's completion writes (the answer's block and receipt read them). */
const completionFields = (r: X402PaymentDoc) => ({
  status: r.status,
  tx_hash: r.tx_hash,
  block_number: r.block_number,
  settled_at: r.settled_at,
  completed_at: r.completed_at,
  grant_id: r.grant_id,
  reconciled: r.reconciled,
});

describe('the credit purchase answer from the settlement outcome', () => {
  let stack: TestStack;
  let url: string;
  let ledger: LedgerStore;
  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    url = `${stack.server.mainUrl}/api/external/credits/purchase`;
    ledger = new LedgerStore(stack.db.models);
  }, 120_000);
  afterAll(async () => {
    await stack.stop();
  });

  const stored = async (id: string) => (await stack.db.models.x402Payments.findById(id).lean<X402PaymentDoc>().exec())!;

  async function pay(payer: TestPayer, body: Record<string, unknown>) {
    const challenge = (await http('POST', url, { body })).body;
    const header = await payer.paymentHeader(challenge);
    return { header, res: await http('POST', url, { body, headers: { 'x-payment': header } }) };
  }

  it('answers the balance a fresh read gives and the block a replay (read from the store) gives', async () => {
    const payer = new TestPayer();
    await payer.fund(20);
    const wallet = '0x' + 'c1'.repeat(20);
    const first = await pay(payer, purchaseBody(wallet));
    expect([first.res.status, first.res.body.data.balance]).toEqual([200, 500]);

    // A second purchase for a wallet that holds credits: the balance the grant wrote is the wallet's.
    const second = await pay(payer, purchaseBody(wallet));
    expect(second.res.status).toBe(200);
    expect(second.res.body.data.balance).toBe(1000);
    expect((await ledger.balance(wallet)).balance).toBe(1000);

    // The same payment again with the payer's proof is answered from the stored record: the same
    // block, receipt and grant (alone it gets the status and the same receipt).
    const status = await http('POST', url, { body: purchaseBody(wallet), headers: { 'x-payment': second.header } });
    expect(status.body.x402).toEqual(second.res.body.x402);
    expect(status.body.data.balance).toBeUndefined();
    // Each proof signs a fresh challenge (its nonce is used once): the one of a status answer.
    const proven = async () => {
      const fresh = await http('POST', url, { body: purchaseBody(wallet), headers: { 'x-payment': second.header } });
      return http('POST', url, {
        body: purchaseBody(wallet),
        headers: {
          'x-payment': second.header,
          'sign-in-with-x': await proofFrom(fresh.body, payer.account, stack.config.publicBaseUrl),
        },
      });
    };
    const again = await proven();
    expect(again.status).toBe(200);
    expect(again.body.x402).toEqual(second.res.body.x402);
    expect(again.body.data).toEqual(second.res.body.data);
    expect(again.headers.get('payment-response')).toBe(second.res.headers.get('payment-response'));

    // A replay reads the balance now: a spend since the purchase shows.
    await ledger.spend({ wallet, requestId: 'after-purchase', credits: 100 });
    const later = await proven();
    expect([later.status, later.body.data.balance]).toEqual([200, 900]);
    expect(later.body.x402).toEqual(second.res.body.x402);
    expect(await payer.balance()).toBe(10_000_000n);
  }, 120_000);

  it('answers an outcome without the completion fields (an older worker) from the store, the same answer', async () => {
    const setup = paymentSetup(stack.config.x402);
    if ('disabled' in setup) throw new Error(setup.disabled);
    const engine = settlementEngine(stack.temporal);
    const seen: Array<Record<string, unknown>> = [];
    // The outcome as a worker from before these fields returns it; everything else is the real engine.
    const olderWorker: GateEngine = {
      start: engine.start,
      await: async (id, waitMs) => {
        const out = await engine.await(id, waitMs);
        if (out) seen.push({ ...out });
        return out?.status === 'completed' ? { status: 'completed', txHash: out.txHash, grantId: out.grantId } : out;
      },
    };
    const payments = new PaymentRepository(stack.db.models);
    const gateOf = (e: GateEngine) =>
      new PaymentGate(setup, payments, e, new InFlightPayments(stack.db.models, payments), 60_000);
    const purchasesOf = (e: GateEngine) => new CreditPurchaseService(setup, gateOf(e), ledger, url);
    const payer = new TestPayer();
    await payer.fund(20);

    for (const [wallet, purchases] of [
      ['0x' + 'c2'.repeat(20), purchasesOf(olderWorker)],
      ['0x' + 'c3'.repeat(20), purchasesOf(engine)],
    ] as const) {
      const req = purchaseBody(wallet) as PurchaseRequest;
      const challenge = (await http('POST', url, { body: req })).body;
      const result = await purchases.purchase(req, await payer.paymentHeader(challenge));
      if (result.kind !== 'completed') throw new Error(`expected completed, got ${result.kind}`);
      expect(result.balance).toBe(500);
      expect(completionFields(result.record)).toEqual(completionFields(await stored(result.record._id)));
      expect(result.record.status).toBe('completed');
    }
    // The real outcome carried the completion and the balance; the older one was answered all the same.
    expect(seen[0]).toMatchObject({ status: 'completed', completion: expect.any(Object), balanceAfter: 500 });
  }, 120_000);

  it('a worker that died between the grant and the completion: the retry grants nothing again and carries no balance', async () => {
    const setup = paymentSetup(stack.config.x402);
    if ('disabled' in setup) throw new Error(setup.disabled);
    const payer = new TestPayer();
    await payer.fund(10);
    const wallet = '0x' + 'c4'.repeat(20);
    // A verified payment recorded, its settlement not run yet (no engine starts it here).
    const noStart: GateEngine = { start: async () => undefined, await: async () => undefined };
    const payments = new PaymentRepository(stack.db.models);
    const gate = new PaymentGate(setup, payments, noStart, new InFlightPayments(stack.db.models, payments), 0);
    const req = purchaseBody(wallet) as PurchaseRequest;
    const challenge = (await http('POST', url, { body: req })).body;
    const header = await payer.paymentHeader(challenge);
    // The resource is the deployment's public purchase URL, as the API's own service names it.
    const publicUrl = `${stack.config.publicBaseUrl}/api/external/credits/purchase`;
    const pending = await new CreditPurchaseService(setup, gate, ledger, publicUrl).purchase(req, header);
    expect(pending.kind).toBe('pending');
    const id = pending.record._id;

    // The earlier attempt wrote the grant, then died before the record said completed.
    await ledger.grant({ wallet, grantId: `x402:${id}`, credits: 500, creditType: 'x402_purchase' });
    const acts = createSettlementActivities(
      settlementUseCases(
        rootOf({ config: stack.config, db: stack.db, temporal: stack.temporal, identity: 'test' }),
        setup,
      ),
    );
    const outcome = await acts.settlePayment(id);
    expect(outcome).toMatchObject({ status: 'completed', grantId: `x402:${id}`, completion: expect.any(Object) });
    expect(outcome).not.toHaveProperty('balanceAfter');
    // And once more after the completion: answered from the record, nothing written.
    const twice = await acts.settlePayment(id);
    expect(twice).toEqual(outcome);
    expect((await ledger.balance(wallet)).balance).toBe(500);
    expect((await ledger.history(wallet, 10)).grants).toHaveLength(1);

    // The payer's retry of the same payment, with its proof, is answered from the store, balance read then.
    const status = await http('POST', url, { body: req, headers: { 'x-payment': header } });
    expect([status.status, status.body.data.status, status.body.data.balance]).toEqual([200, 'completed', undefined]);
    const res = await http('POST', url, {
      body: req,
      headers: {
        'x-payment': header,
        'sign-in-with-x': await proofFrom(status.body, payer.account, stack.config.publicBaseUrl),
      },
    });
    expect([res.status, res.body.data.balance, res.body.data.grant_id]).toEqual([200, 500, `x402:${id}`]);
    expect(completionFields(await stored(id))).toMatchObject({ status: 'completed', grant_id: `x402:${id}` });
  }, 120_000);
});
