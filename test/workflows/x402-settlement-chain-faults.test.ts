import { createPublicClient, createWalletClient, type Hex, http as viemHttp } from 'viem';
import { type RunningLocalChain, startLocalChain } from '../../scripts/services/local-chain';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { DEV_ACCOUNT_INDEX, devAccount } from '../../shared/payments/chain/dev-accounts';
import type { X402PaymentDoc } from '../../shared/payments/models/x402-payment';
import { encodePaymentPayload } from '../../shared/payments/x402/challenge';
import { viemChain } from '../../shared/payments/x402/networks';
import { settlementWorkflowId } from '../../temporal/x402-settlement/ids';
import { QUEUES } from '../../workers/queues';
import { type RunningWorkers, runWorkers } from '../../workers/run-workers';
import { handSignedPayload, rpc, signAuthorization } from '../support/chain-control';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { startTestStack, TestStack } from '../support/stack';
import { waitUntil } from '../support/wait';

const body = (wallet: string) => ({
  wallet_address: wallet,
  credits: 500,
  payment_method: 'x402',
  chain_id: 84532,
  token: 'USDC',
});
const facilitator = devAccount(DEV_ACCOUNT_INDEX.facilitator);

// These tests stop mining and drop transactions, so they run on a chain of their own.
describe('settlement through dropped, replaced and expired transactions (own anvil, real store and Temporal)', () => {
  let chain: RunningLocalChain;
  let stack: TestStack;
  let workers: RunningWorkers;
  let url: string;
  let ledger: LedgerStore;
  const reader = () => createPublicClient({ chain: viemChain(84532, chain.rpcUrl), transport: viemHttp(chain.rpcUrl) });

  beforeAll(async () => {
    chain = await startLocalChain();
    Object.assign(process.env, chain.env);
    stack = await startTestStack({ env: { X402_SETTLE_WAIT_MS: '300' } });
    url = `${stack.server.mainUrl}/api/external/credits/purchase`;
    ledger = new LedgerStore(stack.db.models);
    workers = await runWorkers(
      { config: stack.config, db: stack.db, temporal: stack.temporal, identity: 'faults-test' },
      [...QUEUES],
      stack.config.temporalAddress,
    );
  });
  afterAll(async () => {
    await workers?.shutdown();
    await stack?.stop();
    await chain?.stop();
  });
  afterEach(async () => {
    await rpc(chain.rpcUrl, 'evm_setAutomine', [true]);
  });

  const record = (id: string) => stack.db.models.x402Payments.findById(id).lean<X402PaymentDoc>().exec();
  const known = async (hash: string) => (await rpc(chain.rpcUrl, 'eth_getTransactionByHash', [hash])) !== null;

  /** Pays with mining stopped, and returns once the worker has broadcast (the hash is recorded). */
  async function payWhileNotMining(wallet: string, header: string): Promise<{ id: string; hash: Hex }> {
    await rpc(chain.rpcUrl, 'evm_setAutomine', [false]);
    const res = await http('POST', url, { body: body(wallet), headers: { 'x-payment': header } });
    expect(res.status).toBe(202);
    const id = res.body.data.payment_id as string;
    const hash = await waitUntil('the broadcast', async () => {
      const h = (await record(id))?.tx_hash;
      return h && (await known(h)) ? (h as Hex) : undefined;
    });
    return { id, hash };
  }

  it('rebroadcasts a dropped transaction while the authorization is valid, and settles with it', async () => {
    const payer = new TestPayer();
    await payer.fund(5);
    const wallet = '0x' + 'd1'.repeat(20);
    const challenge = (await http('POST', url, { body: body(wallet) })).body;
    const { id, hash } = await payWhileNotMining(wallet, await payer.paymentHeader(challenge));

    await rpc(chain.rpcUrl, 'anvil_dropTransaction', [hash]);
    expect(await known(hash)).toBe(false);
    await waitUntil('the rebroadcast', () => known(hash));

    await rpc(chain.rpcUrl, 'evm_setAutomine', [true]);
    await rpc(chain.rpcUrl, 'evm_mine');
    const outcome = await stack.temporal.client.workflow.getHandle(settlementWorkflowId(id)).result();
    expect(outcome).toMatchObject({ status: 'completed', txHash: hash });
    expect((await ledger.balance(wallet)).balance).toBe(500);
    expect(await payer.balance()).toBe(0n);
  });

  it('sends anew under a fresh nonce when another transaction took ours', async () => {
    const payer = new TestPayer();
    await payer.fund(5);
    const wallet = '0x' + 'd2'.repeat(20);
    const challenge = (await http('POST', url, { body: body(wallet) })).body;
    const { id, hash } = await payWhileNotMining(wallet, await payer.paymentHeader(challenge));

    // Someone with the settlement key (an operator's script, another deployment) replaces it by fee.
    const ours = await reader().getTransaction({ hash });
    const wallet0 = createWalletClient({
      account: facilitator,
      chain: viemChain(84532, chain.rpcUrl),
      transport: viemHttp(chain.rpcUrl),
    });
    await wallet0.sendTransaction({
      to: facilitator.address,
      value: 0n,
      nonce: ours.nonce,
      maxFeePerGas: ours.maxFeePerGas! * 3n,
      maxPriorityFeePerGas: ours.maxPriorityFeePerGas! * 3n + 1n,
    });
    await rpc(chain.rpcUrl, 'evm_mine');

    const moved = await waitUntil('the resubmission', async () => {
      const r = await record(id);
      return r?.replaced_tx_hashes?.includes(hash) && r.tx_hash && r.tx_hash !== hash ? r : undefined;
    });
    await rpc(chain.rpcUrl, 'evm_setAutomine', [true]);
    await rpc(chain.rpcUrl, 'evm_mine');
    const outcome = await stack.temporal.client.workflow.getHandle(settlementWorkflowId(id)).result();
    expect(outcome).toMatchObject({ status: 'completed', txHash: moved.tx_hash });
    expect((await ledger.balance(wallet)).balance).toBe(500);
    expect(await payer.balance()).toBe(0n);
  });

  it('fails a payment whose transaction was dropped until the authorization expired: nothing charged, no nonce gap left', async () => {
    const payer = new TestPayer();
    await payer.fund(5);
    const wallet = '0x' + 'd3'.repeat(20);
    const challenge = (await http('POST', url, { body: body(wallet) })).body;
    // 20 s: the API refuses an authorization less than 6 s from expiry, and a loaded machine can take
    // several seconds from here to the verification (and the broadcast); the test then waits it out.
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 20);
    const signed = await signAuthorization(
      payer.account,
      { address: TestPayer.tokenAddress(), name: 'USDC', version: '2' },
      { to: challenge.accepts[0].payTo, value: 5_000_000n, validBefore },
    );
    const header = encodePaymentPayload(handSignedPayload(challenge, signed) as never);
    const { id, hash } = await payWhileNotMining(wallet, header);

    await rpc(chain.rpcUrl, 'anvil_dropTransaction', [hash]);
    await waitUntil(
      'the authorization to expire',
      async () => BigInt(Math.floor(Date.now() / 1000)) > validBefore + 1n,
      40_000,
    );
    await rpc(chain.rpcUrl, 'evm_setAutomine', [true]);
    await rpc(chain.rpcUrl, 'evm_mine');

    const outcome = await stack.temporal.client.workflow.getHandle(settlementWorkflowId(id)).result();
    expect(outcome).toMatchObject({ status: 'failed', code: 'authorization_expired_unsettled' });
    expect(await record(id)).toMatchObject({ status: 'failed', error_code: 'authorization_expired_unsettled' });
    expect(await payer.balance()).toBe(5_000_000n);
    expect((await ledger.balance(wallet)).balance).toBe(0);
    // The claimed nonce was used (the rebroadcast reverted), so later settlements are not stuck behind it.
    await waitUntil('no pending gap', async () => {
      const [latest, pending] = await Promise.all([
        reader().getTransactionCount({ address: facilitator.address, blockTag: 'latest' }),
        reader().getTransactionCount({ address: facilitator.address, blockTag: 'pending' }),
      ]);
      return latest === pending && latest > 0;
    });
    const again = await http('POST', url, { body: body(wallet), headers: { 'x-payment': header } });
    expect(again.status).toBe(402);
    expect(again.text).toContain('authorization_expired_unsettled');

    // And the key still settles.
    const next = new TestPayer();
    await next.fund(5);
    const res = await http('POST', url, {
      body: body('0x' + 'd4'.repeat(20)),
      headers: { 'x-payment': await next.paymentHeader(challenge) },
    });
    const nextId = res.body.data.payment_id as string;
    expect(await stack.temporal.client.workflow.getHandle(settlementWorkflowId(nextId)).result()).toMatchObject({
      status: 'completed',
    });
  }, 90_000);
});
