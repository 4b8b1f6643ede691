import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import { ExactEvmScheme as ExactEvmFacilitatorScheme } from '@x402/evm/exact/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/fetch';
import { type Address, createPublicClient, createWalletClient, http as viemHttp } from 'viem';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { DEV_ACCOUNT_INDEX, devAccount } from '../../shared/payments/chain/dev-accounts';
import type { X402PaymentDoc } from '../../shared/payments/models/x402-payment';
import { encodePaymentPayload } from '../../shared/payments/x402/challenge';
import { facilitatorSigner } from '../../shared/payments/x402/in-process-facilitator';
import { viemChain } from '../../shared/payments/x402/networks';
import { settlementWorkflowId } from '../../temporal/x402-settlement/ids';
import { QUEUES } from '../../workers/queues';
import { type RunningWorkers, runWorkers } from '../../workers/run-workers';
import { handSignedPayload, rpc, signAuthorization } from '../support/chain-control';
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

/**
 * A stand-in external facilitator on loopback (@x402/core's x402Facilitator with @x402/evm's
 * exact scheme, its own gas key). `settle` can broadcast and then not answer, or not answer at all.
 */
async function standInFacilitator(mode: { settle: 'broadcast_then_hang' | 'hang' }) {
  const rpcUrl = TestPayer.rpcUrl();
  const chain = viemChain(84532, rpcUrl);
  const account = devAccount(8);
  const signer = facilitatorSigner(
    createPublicClient({ chain, transport: viemHttp(rpcUrl) }),
    createWalletClient({ account, chain, transport: viemHttp(rpcUrl) }),
    30_000,
  );
  const external = new x402Facilitator().register('eip155:84532', new ExactEvmFacilitatorScheme(signer));
  const calls = { verify: 0, settle: 0, broadcasts: [] as string[] };
  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      paymentPayload: PaymentPayload;
      paymentRequirements: PaymentRequirements;
    };
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const b = await read(req);
      if (req.url === '/verify') {
        calls.verify++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(await external.verify(b.paymentPayload, b.paymentRequirements)));
        return;
      }
      calls.settle++;
      if (mode.settle === 'broadcast_then_hang') {
        const settled = await external.settle(b.paymentPayload, b.paymentRequirements);
        if (settled.transaction) calls.broadcasts.push(settled.transaction.toLowerCase());
      }
      // Never answers: the caller's deadline passes with the money moved (or not).
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// Workers bundle the workflow code on first start, slow on a loaded machine.
jest.setTimeout(120_000);

describe('settlement through a remote facilitator that times out (real chain, store, Temporal, HTTP)', () => {
  let facilitator: Awaited<ReturnType<typeof standInFacilitator>>;
  let stack: TestStack;
  let workers: RunningWorkers | undefined;

  async function start(mode: { settle: 'broadcast_then_hang' | 'hang' }) {
    facilitator = await standInFacilitator(mode);
    // The facilitator's /verify must answer (and a hung settle broadcast) within this bound: 1.5 s
    // could run out on a loaded machine for its chain reads alone.
    stack = await startTestStack({
      env: { X402_FACILITATOR_URL: facilitator.url, X402_FACILITATOR_TIMEOUT_MS: '6000', X402_SETTLE_WAIT_MS: '300' },
    });
  }
  afterEach(async () => {
    await workers?.shutdown();
    workers = undefined;
    await stack?.stop();
    await facilitator?.close();
  });

  const runAll = async () => {
    workers = await runWorkers(
      { config: stack.config, db: stack.db, temporal: stack.temporal, identity: 'remote-test' },
      [...QUEUES],
      stack.config.temporalAddress,
    );
  };

  it('after a timeout that hid a broadcast, reads the chain, finds our transfer and grants once', async () => {
    await start({ settle: 'broadcast_then_hang' });
    const url = `${stack.server.mainUrl}/api/external/credits/purchase`;
    const payer = new TestPayer();
    await payer.fund(5);
    const wallet = '0x' + 'b1'.repeat(20);
    const challenge = (await http('POST', url, { body: body(wallet) })).body;
    const res = await http('POST', url, {
      body: body(wallet),
      headers: { 'x-payment': await payer.paymentHeader(challenge) },
    });
    expect(res.status).toBe(202);
    const id = res.body.data.payment_id as string;
    // Read beside the remote verification: where the log search for this authorization starts.
    expect((await stack.db.models.x402Payments.findById(id).lean<X402PaymentDoc>())?.verified_block).toMatch(/^\d+$/);

    await runAll();
    const outcome = await stack.temporal.client.workflow.getHandle(settlementWorkflowId(id)).result();
    expect(outcome).toMatchObject({ status: 'completed' });
    expect(facilitator.calls.broadcasts).toHaveLength(1);
    expect((outcome as { txHash: string }).txHash).toBe(facilitator.calls.broadcasts[0]);
    // The retry asked the chain instead of the facilitator again.
    expect(facilitator.calls.settle).toBe(1);
    expect(await stack.db.models.x402Payments.findById(id).lean<X402PaymentDoc>()).toMatchObject({
      status: 'completed',
      reconciled: true,
    });
    expect((await new LedgerStore(stack.db.models).balance(wallet)).balance).toBe(500);
    expect(await payer.balance()).toBe(0n);
  });

  it('when nothing was broadcast, stops once the authorization expired unused: failed, nothing charged', async () => {
    await start({ settle: 'hang' });
    const url = `${stack.server.mainUrl}/api/external/credits/purchase`;
    const payer = new TestPayer();
    await payer.fund(5);
    const wallet = '0x' + 'b2'.repeat(20);
    const challenge = (await http('POST', url, { body: body(wallet) })).body;
    // 20 s: the API refuses an authorization less than 6 s from expiry, and a loaded machine can take
    // several seconds from here to the verification (and the broadcast); the test then waits it out.
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 20);
    const signed = await signAuthorization(
      payer.account,
      { address: TestPayer.tokenAddress(), name: 'USDC', version: '2' },
      { to: merchant, value: 5_000_000n, validBefore },
    );
    const res = await http('POST', url, {
      body: body(wallet),
      headers: { 'x-payment': encodePaymentPayload(handSignedPayload(challenge, signed) as never) },
    });
    expect(res.status).toBe(202);
    const id = res.body.data.payment_id as string;

    await runAll();
    while (BigInt(Math.floor(Date.now() / 1000)) <= validBefore) await new Promise((r) => setTimeout(r, 250));
    await rpc(TestPayer.rpcUrl(), 'evm_mine');
    const outcome = await stack.temporal.client.workflow.getHandle(settlementWorkflowId(id)).result();
    expect(outcome).toMatchObject({ status: 'failed', code: 'authorization_expired_unsettled' });
    expect(facilitator.calls.settle).toBeGreaterThanOrEqual(1);
    expect(await payer.balance()).toBe(5_000_000n);
    expect((await new LedgerStore(stack.db.models).balance(wallet)).balance).toBe(0);
  });
});
