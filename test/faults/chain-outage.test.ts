import { type RunningLocalChain, startLocalChain } from '../../scripts/services/local-chain';
import { LedgerStore } from '../../shared/credits/ledger-store';
import type { X402PaymentDoc } from '../../shared/payments/models/x402-payment';
import { settlementWorkflowId } from '../../temporal/x402-settlement/ids';
import { rpc, type RpcProxy, startRpcProxy } from '../support/chain-control';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { creditedOnce, purchaseBroadcastUnmined } from '../support/purchase';
import { startTestStack, type TestStack } from '../support/stack';

/**
 * The chain's RPC provider goes away in the middle of a settlement and comes back: the payment
 * settles when it returns, the credits are granted once, and the same payment sent again answers
 * the recorded result. The API and the workers reach the chain through a proxy that can be cut.
 */
describe('fault: the chain RPC down during settlement (own anvil behind a proxy, real store and Temporal)', () => {
  let chain: RunningLocalChain;
  let proxy: RpcProxy;
  let stack: TestStack;
  let url: string;

  beforeAll(async () => {
    chain = await startLocalChain();
    Object.assign(process.env, chain.env);
    proxy = await startRpcProxy(chain.rpcUrl);
    stack = await startTestStack({ workers: true, env: { X402_RPC_URL_84532: proxy.url, X402_SETTLE_WAIT_MS: '300' } });
    url = `${stack.server.mainUrl}/api/external/credits/purchase`;
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await proxy?.close();
    await chain?.stop();
  });

  it('broadcast, then the provider is down while the block is mined: settles once it is back, credited once', async () => {
    const wallet = '0x' + 'b8'.repeat(20);
    const { body, header, payer, paymentId } = await purchaseBroadcastUnmined(stack, chain.rpcUrl, wallet);

    proxy.down = true;
    await rpc(chain.rpcUrl, 'evm_setAutomine', [true]);
    await rpc(chain.rpcUrl, 'evm_mine');
    // Meanwhile the API cannot verify a new payment, and says so.
    const other = new TestPayer();
    await other.fund(5);
    const refused = await http('POST', url, {
      body: { ...body, wallet_address: '0x' + 'b9'.repeat(20) },
      headers: { 'x-payment': await other.paymentHeader((await http('POST', url, { body })).body) },
    });
    expect([refused.status, refused.body.error_code]).toEqual([503, 'chain_unavailable']);
    await new Promise((r) => setTimeout(r, 2000));
    expect((await stack.db.models.x402Payments.findById(paymentId).lean<X402PaymentDoc>().exec())?.status).not.toBe(
      'completed',
    );
    expect((await new LedgerStore(stack.db.models).balance(wallet)).balance).toBe(0);

    proxy.down = false;
    const outcome = await stack.temporal.client.workflow.getHandle(settlementWorkflowId(paymentId)).result();
    expect(outcome).toMatchObject({ status: 'completed' });
    expect(await creditedOnce(stack, wallet, payer)).toEqual({ balance: 500, grants: 1, payerLeft: 0n });

    const again = await http('POST', url, { body, headers: { 'x-payment': header } });
    expect([again.status, again.body.data.payment_id]).toEqual([200, paymentId]);
    expect((await new LedgerStore(stack.db.models).balance(wallet)).balance).toBe(500);
  }, 120_000);
});
