import type { X402PaymentDoc } from '../../shared/payments/models/x402-payment';
import { ToolRepository } from '../../shared/tools/repository';
import { settlementWorkflowId } from '../../temporal/x402-settlement/ids';
import { runSettlementSweep } from '../../temporal/x402-sweep/client';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { startTestStack, type TestStack } from '../support/stack';
import { startScriptedVendor, type VendorBehaviour } from '../support/vendor';
import { waitUntil } from '../support/wait';

jest.setTimeout(180_000);

describe('the sweep abandons direct x402 tool calls left delivering (real store, Temporal, chain, HTTP vendor)', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let behaviour: VendorBehaviour = () => ({ status: 200, body: { ok: true } });
  const url = () => `${stack.server.mainUrl}/api/external/tools/slow/actions/run/invoke`;

  beforeAll(async () => {
    // Every delivering payment counts as stale at once, so the sweep meets the call mid-flight.
    stack = await startTestStack({ workers: true, env: { X402_DELIVERING_STALE_SECONDS: '0' } });
    vendor = await startScriptedVendor((call) => behaviour(call));
    const repo = new ToolRepository(stack.db.models);
    await repo.createProduct({ slug: 'slow', name: 'slow' });
    await repo.addAction('slow', {
      slug: 'run',
      credits: 1,
      x402_usd: '0.01',
      parameters_schema: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
      runner: { kind: 'http', url: `${vendor.url}/run`, method: 'POST', timeout_ms: 30_000 },
    });
  }, 180_000);
  afterAll(async () => {
    await vendor?.stop();
    await stack?.stop();
  });

  const paymentOf = (payer: TestPayer) =>
    stack.db.models.x402Payments.findOne({ payer: payer.account.address.toLowerCase() }).lean<X402PaymentDoc>().exec();
  async function signedHeader(payer: TestPayer, params: Record<string, unknown>): Promise<string> {
    const challenge = await http('POST', url(), { body: params });
    expect(challenge.status).toBe(402);
    return payer.paymentHeader(challenge.body);
  }

  it('a call still delivering is abandoned unsettled; its late answer and every retry of the authorization get a clear 402; nothing is charged', async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    behaviour = () => ({ status: 200, body: { answer: 'late' }, delayMs: 6_000 });
    const header = await signedHeader(payer, { n: 1 });
    const before = vendor.calls.length;
    const call = http('POST', url(), { body: { n: 1 }, headers: { 'x-payment': header } });
    await waitUntil('the vendor has the call', async () => vendor.calls.length > before, 60_000);
    const held = (await paymentOf(payer))!;
    expect(held.status).toBe('delivering');

    // The API's process would be gone by now in production (the bound is far past every vendor timeout).
    const swept = await runSettlementSweep(stack.temporal, `deliveries-${Date.now()}`, 3600);
    expect(swept).toMatchObject({ found: 0, abandoned: [held._id] });
    expect(await paymentOf(payer)).toMatchObject({ status: 'failed', error_code: 'delivery_abandoned' });

    // The vendor answers after all: the payment stays abandoned, the caller is told so.
    const late = await call;
    expect(late.status).toBe(402);
    expect(late.text).toContain('delivery_abandoned');
    expect(late.text).not.toContain('"late"');
    expect(await paymentOf(payer)).toMatchObject({ status: 'failed', error_code: 'delivery_abandoned' });
    await expect(stack.temporal.client.workflow.getHandle(settlementWorkflowId(held._id)).describe()).rejects.toThrow(
      /not found/i,
    );

    // The payer retries the same authorization: the same clear 402 (with the challenge), no vendor call.
    const calls = vendor.calls.length;
    const retry = await http('POST', url(), { body: { n: 1 }, headers: { 'x-payment': header } });
    expect(retry.status).toBe(402);
    expect(retry.text).toContain('delivery_abandoned');
    expect(retry.headers.get('payment-required')).toBeTruthy();
    expect(vendor.calls.length).toBe(calls);
    expect(await payer.balance()).toBe(1_000_000n);

    // A new authorization is admitted (the abandoned one no longer counts against the balance).
    behaviour = () => ({ status: 200, body: { answer: 'paid' } });
    const fresh = await http('POST', url(), {
      body: { n: 1 },
      headers: { 'x-payment': await signedHeader(payer, { n: 1 }) },
    });
    expect([200, 202]).toContain(fresh.status);
    expect(fresh.text).not.toContain('delivery_abandoned');
  });

  it('never abandons a payment whose settlement workflow exists, even if its record still reads delivering', async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    behaviour = () => ({ status: 200, body: { answer: 'delivered' } });
    const res = await http('POST', url(), {
      body: { n: 2 },
      headers: { 'x-payment': await signedHeader(payer, { n: 2 }) },
    });
    expect([200, 202]).toContain(res.status);
    const rec = (await paymentOf(payer))!;
    await stack.temporal.client.workflow.getHandle(settlementWorkflowId(rec._id)).result();
    const settled = (await paymentOf(payer))!.status;
    // A record that lags its settlement (a write lost on the store): the sweep leaves it alone.
    await stack.db.models.x402Payments.updateOne({ _id: rec._id }, { $set: { status: 'delivering' } });
    const swept = await runSettlementSweep(stack.temporal, `settling-${Date.now()}`, 3600);
    expect(swept.abandoned).not.toContain(rec._id);
    expect((await paymentOf(payer))!.status).toBe('delivering');
    expect(await stack.db.models.x402DeliveryOutcomes.findById(rec._id).lean().exec()).toMatchObject({
      outcome: 'delivered',
    });
    await stack.db.models.x402Payments.updateOne({ _id: rec._id }, { $set: { status: settled } });
  });
});
