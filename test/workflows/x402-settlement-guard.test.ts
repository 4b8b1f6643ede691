import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Worker } from '@temporalio/worker';
import type { Address, Hex } from 'viem';
import winston from 'winston';
import { settlementUseCases } from '../../shared/composition/root';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { DEV_ACCOUNT_INDEX, devAccount } from '../../shared/payments/chain/dev-accounts';
import type { X402PaymentDoc } from '../../shared/payments/models/x402-payment';
import { paymentSetup } from '../../shared/payments/x402/setup';
import { parseConfig } from '../../shared/platform/config/index';
import { logger } from '../../shared/platform/logger/index';
import { createSettlementActivities } from '../../temporal/x402-settlement/activities';
import { settlementWorkflowId } from '../../temporal/x402-settlement/ids';
import { rootOf } from '../../workers/deps';
import { QUEUES } from '../../workers/queues';
import { runWorkers } from '../../workers/run-workers';
import { executeAuthorization, rpc, signAuthorization, startRpcProxy } from '../support/chain-control';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { startTestStack, TestStack } from '../support/stack';

const merchant = devAccount(DEV_ACCOUNT_INDEX.merchant).address as Address;
const body = (wallet: string) => ({
  wallet_address: wallet,
  credits: 500,
  payment_method: 'x402',
  chain_id: 84532,
  token: 'USDC',
});
const HISTORY = path.join(__dirname, '../fixtures/histories/x402-settlement.json');
const token = () => ({ address: TestPayer.tokenAddress(), name: 'USDC', version: '2' });

// Workers bundle the workflow code on first start, slow on a loaded machine.
jest.setTimeout(120_000);

describe('settlement grants only for our own transfer, against the real chain, store and Temporal', () => {
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

  /** A verified payment whose settlement waits for a worker (none runs yet), and the header that paid it. */
  async function pendingPurchase(
    wallet: string,
    payer: TestPayer,
  ): Promise<{ record: X402PaymentDoc; header: string }> {
    const challenge = (await http('POST', url, { body: body(wallet) })).body;
    const header = await payer.paymentHeader(challenge);
    const res = await http('POST', url, { body: body(wallet), headers: { 'x-payment': header } });
    expect(res.status).toBe(202);
    const record = (await stack.db.models.x402Payments.findById(res.body.data.payment_id).lean<X402PaymentDoc>())!;
    expect(record.verified_block).toMatch(/^\d+$/);
    return { record, header };
  }

  async function withWorkers<T>(fn: () => Promise<T>, config = stack.config): Promise<T> {
    const workers = await runWorkers(
      { config, db: stack.db, temporal: stack.temporal, identity: 'guard-test' },
      [...QUEUES],
      config.temporalAddress,
    );
    try {
      return await fn();
    } finally {
      await workers.shutdown();
    }
  }

  const searchAttributes = async (workflowId: string) => {
    const desc = await stack.temporal.client.workflow.getHandle(workflowId).describe();
    return Object.fromEntries(desc.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value]));
  };

  it('fails a payment whose nonce the payer spent on a transfer to themselves first: no credits, a clear code', async () => {
    const payer = new TestPayer();
    await payer.fund(5);
    await payer.fundGas();
    const wallet = '0x' + 'e1'.repeat(20);
    const { record, header } = await pendingPurchase(wallet, payer);

    // The front-run: a second authorization under the same nonce, paying the payer itself.
    const theirs = await signAuthorization(payer.account, token(), {
      to: payer.account.address,
      value: 5_000_000n,
      nonce: record.authorization.nonce as Hex,
    });
    const frontRun = await executeAuthorization(TestPayer.rpcUrl(), payer.account, TestPayer.tokenAddress(), theirs);

    const workflowId = settlementWorkflowId(record._id);
    const handle = stack.temporal.client.workflow.getHandle(workflowId);
    const outcome = await withWorkers(() => handle.result());
    expect(outcome).toMatchObject({ status: 'failed', code: 'authorization_used_elsewhere' });
    const after = await stack.db.models.x402Payments.findById(record._id).lean<X402PaymentDoc>();
    expect(after).toMatchObject({
      status: 'failed',
      error_code: 'authorization_used_elsewhere',
      conflicting_tx_hash: frontRun.toLowerCase(),
    });
    expect(after?.tx_hash).toBeUndefined();
    expect((await ledger.balance(wallet)).balance).toBe(0);
    // The payer kept its money (it paid itself); nothing reached us under this payment.
    expect(await payer.balance()).toBe(5_000_000n);
    expect(await searchAttributes(workflowId)).toMatchObject({
      FlowStatus: 'failed',
      FailureCode: 'authorization_used_elsewhere',
    });

    // The payer asking again gets the answer, not credits.
    const again = await http('POST', url, { body: body(wallet), headers: { 'x-payment': header } });
    expect(again.status).toBe(402);
    expect(again.text).toContain('authorization_used_elsewhere');
    expect((await ledger.balance(wallet)).balance).toBe(0);

    // The replay fixture of the settlement workflow (rewritten with UPDATE_HISTORIES=1).
    const history = await handle.fetchHistory();
    if (process.env.UPDATE_HISTORIES || !fs.existsSync(HISTORY)) {
      fs.mkdirSync(path.dirname(HISTORY), { recursive: true });
      fs.writeFileSync(HISTORY, JSON.stringify(history, null, 1));
    }
    await Worker.runReplayHistory({ workflowsPath: require.resolve('../../temporal/workflows') }, history);
  });

  it('fails a front-run that pays us less than verified under the same nonce', async () => {
    const payer = new TestPayer();
    await payer.fund(5);
    await payer.fundGas();
    const wallet = '0x' + 'e2'.repeat(20);
    const { record } = await pendingPurchase(wallet, payer);
    const theirs = await signAuthorization(payer.account, token(), {
      to: merchant,
      value: 1n,
      nonce: record.authorization.nonce as Hex,
    });
    await executeAuthorization(TestPayer.rpcUrl(), payer.account, TestPayer.tokenAddress(), theirs);

    const outcome = await withWorkers(() =>
      stack.temporal.client.workflow.getHandle(settlementWorkflowId(record._id)).result(),
    );
    expect(outcome).toMatchObject({ status: 'failed', code: 'authorization_used_elsewhere' });
    expect((outcome as { message: string }).message).toContain(`moved 1 from`);
    expect((await ledger.balance(wallet)).balance).toBe(0);
  });

  it('finds the transaction through an RPC that caps getLogs ranges, searching windows from the verified block', async () => {
    const proxy = await startRpcProxy(TestPayer.rpcUrl(), { maxLogRange: 10 });
    try {
      const payer = new TestPayer();
      await payer.fund(5);
      const wallet = '0x' + 'e3'.repeat(20);
      const { record } = await pendingPurchase(wallet, payer);

      // An earlier attempt executed it outside our records (a worker died before recording anything).
      const setup = paymentSetup(stack.config.x402);
      if ('disabled' in setup) throw new Error(setup.disabled);
      const sent = await setup.inProcess!.submitSettlement({
        network: record.network as `eip155:${number}`,
        asset: record.asset as Address,
        authorization: record.authorization as never,
        signature: record.signature as Hex,
      });
      if (!sent.ok) throw new Error(sent.message);
      await setup.inProcess!.waitForReceipt({ network: 'eip155:84532', txHash: sent.txHash });
      await rpc(TestPayer.rpcUrl(), 'anvil_mine', ['0x3c']); // 60 blocks later

      const capped = parseConfig({
        ...process.env,
        X402_SETTLE_WAIT_MS: '300',
        X402_RPC_URL_84532: proxy.url,
        X402_LOG_WINDOW_BLOCKS: '10',
      });
      const outcome = await withWorkers(
        () => stack.temporal.client.workflow.getHandle(settlementWorkflowId(record._id)).result(),
        capped,
      );
      expect(outcome).toMatchObject({ status: 'completed', txHash: sent.txHash });
      expect(await stack.db.models.x402Payments.findById(record._id).lean<X402PaymentDoc>()).toMatchObject({
        status: 'completed',
        reconciled: true,
        tx_hash: sent.txHash,
      });
      expect((await ledger.balance(wallet)).balance).toBe(500);
      expect(proxy.maxLogRange).toBeGreaterThan(0);
      expect(proxy.maxLogRange).toBeLessThanOrEqual(10);
    } finally {
      await proxy.close();
    }
  });

  describe('a failed attempt', () => {
    const raw: string[] = [];
    const capture = new winston.transports.Stream({
      stream: new Writable({
        write(chunk, _enc, done) {
          raw.push(chunk.toString());
          done();
        },
      }),
    });
    beforeAll(() => {
      logger.silent = false;
      logger.level = 'info';
      logger.add(capture);
    });
    afterAll(() => {
      logger.remove(capture);
      logger.silent = true;
    });

    it("logs one short line without the RPC URL (or its key), and fails without viem's error text", async () => {
      const key = 'FAKEKEY-9f8e7d6c5b4a';
      // A hosted-provider-like RPC whose URL carries a key and which refuses the broadcast
      // (viem's error then holds the URL and the whole signed transaction).
      const proxy = await startRpcProxy(TestPayer.rpcUrl(), {
        path: `/v2/${key}`,
        fail: { eth_sendRawTransaction: 'upstream overloaded, try later' },
      });
      try {
        const payer = new TestPayer();
        await payer.fund(5);
        const { record } = await pendingPurchase('0x' + 'e4'.repeat(20), payer);
        const setup = paymentSetup({ ...stack.config.x402, rpcUrls: { 84532: proxy.url } });
        if ('disabled' in setup) throw new Error(setup.disabled);
        const root = rootOf({ config: stack.config, db: stack.db, temporal: stack.temporal, identity: 'test' });
        const acts = createSettlementActivities(settlementUseCases(root, setup));
        raw.length = 0;
        const err = (await acts.settlePayment(record._id).catch((e: unknown) => e)) as Error & { type?: string };
        expect(err).toBeInstanceOf(Error);
        expect(err.message).not.toContain(key);
        expect(err.message).not.toContain('127.0.0.1');
        expect(err.message.length).toBeLessThan(300);
        const lines = raw.filter((l) => l.includes('settlement attempt failed'));
        expect(lines).toHaveLength(1);
        expect(lines[0]!.length).toBeLessThan(600);
        const line = JSON.parse(lines[0]!);
        const after = await stack.db.models.x402Payments.findById(record._id).lean<X402PaymentDoc>();
        expect(line).toMatchObject({
          level: 'warn',
          code: 'chain_error',
          payment_id: expect.stringMatching(/^eip155:84532:/),
          tx_hash: expect.stringMatching(/^0x/),
        });
        // The hash is recorded before the broadcast, so the line can name it.
        expect(after?.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
        expect(line.message).toBe('settlement attempt failed');
        expect(line.reason).toMatch(/upstream overloaded/);
        expect(raw.join('')).not.toContain(key);
        expect(raw.join('')).not.toMatch(/abi|calldata|Request Arguments/i);
      } finally {
        await proxy.close();
      }
    });

    it('the API answers 503 chain_unavailable, fast and without the URL, when the RPC is unreachable', async () => {
      const key = 'FAKEKEY-0a1b2c3d';
      const down = await startTestStack({
        env: { X402_RPC_URL_84532: `http://127.0.0.1:1/v2/${key}`, X402_SETTLE_WAIT_MS: '300' },
        keepDatabase: true,
      });
      try {
        const downUrl = `${down.server.mainUrl}/api/external/credits/purchase`;
        const wallet = '0x' + 'e5'.repeat(20);
        const challenge = (await http('POST', downUrl, { body: body(wallet) })).body;
        expect(challenge.x402Version).toBe(2);
        const payer = new TestPayer();
        const started = Date.now();
        const res = await http('POST', downUrl, {
          body: body(wallet),
          headers: { 'x-payment': await payer.paymentHeader(challenge) },
        });
        expect([res.status, res.body?.error_code]).toEqual([503, 'chain_unavailable']);
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(res.text).not.toContain(key);
        expect(raw.join('')).not.toContain(key);
      } finally {
        await down.stop();
      }
    });
  });
});
