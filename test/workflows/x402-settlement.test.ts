import { type Address, createWalletClient, type Hex, http as viemHttp } from 'viem';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { loadTokenArtifact } from '../../shared/payments/chain/token-artifact';
import type { X402PaymentDoc } from '../../shared/payments/models/x402-payment';
import { viemChain } from '../../shared/payments/x402/networks';
import { paymentSetup } from '../../shared/payments/x402/setup';
import { settlementWorkflowId } from '../../temporal/x402-settlement/ids';
import { QUEUES } from '../../workers/queues';
import { runWorkers } from '../../workers/run-workers';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { startTestStack, TestStack } from '../support/stack';

const body = (wallet: string) => ({
  wallet_address: wallet,
  credits: 500,
  payment_method: 'x402',
  chain_id: 84532,
  token: 'USDC',
});

describe('x402 settlement workflow against the real chain, store and Temporal', () => {
  let stack: TestStack;
  let url: string;
  let ledger: LedgerStore;
  beforeAll(async () => {
    stack = await startTestStack({ env: { X402_SETTLE_WAIT_MS: '300' } });
    url = `${stack.server.mainUrl}/api/external/credits/purchase`;
    ledger = new LedgerStore(stack.db.models);
  });
  afterAll(async () => {
    await stack.stop();
  });

  /** A verified payment whose settlement workflow waits for a worker (none runs yet). */
  async function pendingPurchase(wallet: string, payer: TestPayer): Promise<X402PaymentDoc> {
    const challenge = (await http('POST', url, { body: body(wallet) })).body;
    const res = await http('POST', url, {
      body: body(wallet),
      headers: { 'x-payment': await payer.paymentHeader(challenge) },
    });
    expect(res.status).toBe(202);
    return (await stack.db.models.x402Payments.findById(res.body.data.payment_id).lean<X402PaymentDoc>())!;
  }

  async function withWorkers<T>(fn: () => Promise<T>): Promise<T> {
    const workers = await runWorkers(
      { config: stack.config, db: stack.db, temporal: stack.temporal, identity: 'settlement-test' },
      [...QUEUES],
      stack.config.temporalAddress,
    );
    try {
      return await fn();
    } finally {
      await workers.shutdown();
    }
  }

  it('reconciles an authorization an earlier attempt already executed: one transfer, one grant', async () => {
    const payer = new TestPayer();
    await payer.fund(10);
    const wallet = '0x' + 'f1'.repeat(20);
    const record = await pendingPurchase(wallet, payer);

    // A worker broadcast the transfer and died before recording it.
    const setup = paymentSetup(stack.config.x402);
    if ('disabled' in setup) throw new Error(setup.disabled);
    const sent = await setup.inProcess!.submitSettlement({
      network: record.network as `eip155:${number}`,
      asset: record.asset as Address,
      authorization: record.authorization as never,
      signature: record.signature as Hex,
    });
    if (!sent.ok) throw new Error(sent.message);
    await setup.inProcess!.waitForReceipt({ network: record.network as `eip155:${number}`, txHash: sent.txHash });

    const outcome = await withWorkers(() =>
      stack.temporal.client.workflow.getHandle(settlementWorkflowId(record._id)).result(),
    );
    expect(outcome).toMatchObject({ status: 'completed', txHash: sent.txHash });
    const after = await stack.db.models.x402Payments.findById(record._id).lean<X402PaymentDoc>();
    expect(after).toMatchObject({ status: 'completed', tx_hash: sent.txHash, reconciled: true });
    expect((await ledger.balance(wallet)).balance).toBe(500);
    expect(await payer.balance()).toBe(5_000_000n);
  });

  it('fails cleanly when the payer moved the funds away after verification: nothing granted, request free again', async () => {
    const payer = new TestPayer();
    await payer.fund(5);
    await payer.fundGas();
    const wallet = '0x' + 'f2'.repeat(20);
    const record = await pendingPurchase(wallet, payer);

    const { abi } = await loadTokenArtifact();
    const chain = viemChain(84532, TestPayer.rpcUrl());
    const wc = createWalletClient({ account: payer.account, chain, transport: viemHttp(TestPayer.rpcUrl()) });
    await wc.writeContract({
      address: TestPayer.tokenAddress(),
      abi,
      functionName: 'transfer',
      args: ['0x000000000000000000000000000000000000dEaD', 5_000_000n],
    });

    const outcome = await withWorkers(() =>
      stack.temporal.client.workflow.getHandle(settlementWorkflowId(record._id)).result(),
    );
    expect(outcome).toMatchObject({ status: 'failed', code: 'insufficient_balance' });
    const after = await stack.db.models.x402Payments.findById(record._id).lean<X402PaymentDoc>();
    expect(after).toMatchObject({
      status: 'failed',
      error_code: 'insufficient_balance',
      purpose_key: `failed:${record._id}`,
    });
    expect((await ledger.balance(wallet)).balance).toBe(0);
  });
});
