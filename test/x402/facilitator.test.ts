import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import { authorizationTypes } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { ExactEvmScheme as ExactEvmFacilitatorScheme } from '@x402/evm/exact/facilitator';
import {
  type PaymentPayload,
  type PaymentRequired,
  type PaymentRequirements,
  wrapFetchWithPayment,
  x402Client,
} from '@x402/fetch';
import { type Address, createPublicClient, createWalletClient, type Hex, http, type LocalAccount, toHex } from 'viem';
import { type RunningAnvil, startAnvil } from '../../scripts/services/anvil';
import { deployToken, mintTokens, tokenBalance } from '../../shared/payments/chain/deploy-token';
import { devAccount, devPrivateKey } from '../../shared/payments/chain/dev-accounts';
import {
  buildPaymentRequired,
  creditsToBaseUnits,
  decodePaymentPayload,
  decodePaymentResponse,
  encodePaymentRequired,
  encodePaymentResponse,
  paymentRequirements,
  X402_HEADERS,
} from '../../shared/payments/x402/challenge';
import { facilitatorSigner } from '../../shared/payments/x402/in-process-facilitator';
import {
  createInProcessFacilitator,
  createRemoteFacilitator,
  type InProcessFacilitator,
  VERIFY_FAILURE_CODES,
  type VerifyFailureCode,
  type VerifyResult,
} from '../../shared/payments/x402/index';
import {
  getToken,
  type NetworkTable,
  SUPPORTED_NETWORKS,
  type SupportedToken,
  viemChain,
  withTokenOverride,
} from '../../shared/payments/x402/networks';

const CHAIN_ID = 84532;
const NETWORK = 'eip155:84532' as const;
const FACILITATOR_INDEX = 1;
const merchant = devAccount(2);
const payer = devAccount(3);
const brokePayer = devAccount(4);
const stranger = devAccount(5);
const otherPayee = devAccount(6);
const FIVE_USD = creditsToBaseUnits(500);
const RESOURCE = { url: 'http://127.0.0.1/paid', description: '500 credits', mimeType: 'application/json' };

/** Loopback HTTP server for the duration of a test; closed by the caller. */
async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    handler(req, res).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(err) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

describe('x402 facilitator against a real anvil chain', () => {
  let anvil: RunningAnvil;
  let token: SupportedToken;
  let table: NetworkTable;
  let facilitator: InProcessFacilitator;

  const balance = (owner: Address) =>
    tokenBalance({ rpcUrl: anvil.rpcUrl, chainId: CHAIN_ID, token: token.address, owner });
  const balances = async () => ({
    payer: await balance(payer.address),
    merchant: await balance(merchant.address),
    broke: await balance(brokePayer.address),
  });
  const now = () => Math.floor(Date.now() / 1000);

  function requirements(overrides: Partial<PaymentRequirements> = {}, amount = FIVE_USD): PaymentRequirements {
    return { ...paymentRequirements({ chainId: CHAIN_ID, token, amount, payTo: merchant.address }), ...overrides };
  }

  function challenge(reqs: PaymentRequirements = requirements()): PaymentRequired {
    return buildPaymentRequired({ resource: RESOURCE, accepts: [reqs] });
  }

  /** The official x402 client: @x402/core's x402Client with @x402/evm's exact scheme and a viem account. */
  function officialClient(account: LocalAccount): x402Client {
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: account });
    // The local token is not one of the package's default assets, so the payer opts in to it.
    client.setSpendControls({ allowedAssets: [{ network: NETWORK, asset: token.address }] });
    return client;
  }

  const pay = (account: LocalAccount, reqs: PaymentRequirements = requirements()): Promise<PaymentPayload> =>
    officialClient(account).createPaymentPayload(challenge(reqs));

  /** A payload signed by hand, for windows the official client never produces. */
  async function handSigned(opts: {
    signer?: LocalAccount;
    validAfter: number;
    validBefore: number;
  }): Promise<PaymentPayload> {
    const reqs = requirements();
    const authorization = {
      from: payer.address,
      to: merchant.address,
      value: reqs.amount,
      validAfter: String(opts.validAfter),
      validBefore: String(opts.validBefore),
      nonce: toHex(randomBytes(32)),
    };
    const signature = await (opts.signer ?? payer).signTypedData({
      domain: {
        name: token.eip712.name,
        version: token.eip712.version,
        chainId: CHAIN_ID,
        verifyingContract: token.address,
      },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: {
        ...authorization,
        value: BigInt(authorization.value),
        validAfter: BigInt(authorization.validAfter),
        validBefore: BigInt(authorization.validBefore),
      },
    });
    return { x402Version: 2, resource: RESOURCE, accepted: reqs, payload: { authorization, signature } };
  }

  /** Verify AND settle must both refuse with `code`, and no token may move. */
  async function expectRefused(payload: unknown, reqs: PaymentRequirements, code: VerifyFailureCode): Promise<void> {
    const before = await balances();
    const verified = await facilitator.verifyPayment(payload, reqs);
    expect(verified).toMatchObject({ ok: false, code });
    const settled = await facilitator.settlePayment(payload, reqs);
    expect(settled).toMatchObject({ ok: false, code });
    expect(await balances()).toEqual(before);
  }

  beforeAll(async () => {
    anvil = await startAnvil({ port: 0, chainId: CHAIN_ID });
    // Named like Base Sepolia's USDC so the 84532 entry keeps its real domain, only the address changes.
    const deployed = await deployToken({
      rpcUrl: anvil.rpcUrl,
      chainId: CHAIN_ID,
      name: 'USDC',
      symbol: 'USDC',
      version: '2',
    });
    table = withTokenOverride(SUPPORTED_NETWORKS, {
      chainId: CHAIN_ID,
      symbol: 'USDC',
      address: deployed.address,
      eip712: { name: 'USDC', version: '2' },
    });
    token = getToken(CHAIN_ID, 'USDC', table)!;
    await mintTokens({
      rpcUrl: anvil.rpcUrl,
      chainId: CHAIN_ID,
      token: token.address,
      to: payer.address,
      amount: 1_000_000_000n,
    });
    facilitator = createInProcessFacilitator({
      chains: [{ chainId: CHAIN_ID, rpcUrl: anvil.rpcUrl, settlementPrivateKey: devPrivateKey(FACILITATOR_INDEX) }],
      networks: table,
      receiptTimeoutMs: 20_000,
    });
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  it('settles a payment made by the official @x402/fetch client end to end', async () => {
    const reqs = requirements();
    const server = await listen(async (req, res) => {
      const header =
        req.headers[X402_HEADERS.paymentSignature.toLowerCase()] ??
        req.headers[X402_HEADERS.legacyPayment.toLowerCase()];
      if (!header) {
        res.writeHead(402, {
          'content-type': 'application/json',
          [X402_HEADERS.paymentRequired]: encodePaymentRequired(challenge(reqs)),
        });
        res.end(JSON.stringify(challenge(reqs)));
        return;
      }
      const decoded = decodePaymentPayload(String(header));
      if (!decoded.ok) throw new Error(decoded.message);
      const settled = await facilitator.settlePayment(decoded.value, reqs);
      if (!settled.ok) {
        res.writeHead(402, { 'content-type': 'application/json' });
        res.end(JSON.stringify(settled));
        return;
      }
      const paymentResponse = encodePaymentResponse({
        success: true,
        transaction: settled.txHash,
        network: settled.network,
        payer: settled.payer,
      });
      res.writeHead(200, { 'content-type': 'application/json', [X402_HEADERS.paymentResponse]: paymentResponse });
      res.end(JSON.stringify({ credits: 500 }));
    });
    try {
      const before = await balances();
      const paidFetch = wrapFetchWithPayment(fetch, officialClient(payer));
      const res = await paidFetch(`${server.url}/paid`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ credits: 500 });

      const receiptHeader = decodePaymentResponse(res.headers.get(X402_HEADERS.paymentResponse));
      expect(receiptHeader.ok).toBe(true);
      if (!receiptHeader.ok) return;
      expect(receiptHeader.value).toMatchObject({ success: true, network: NETWORK, payer: payer.address });
      const reader = createPublicClient({ chain: viemChain(CHAIN_ID, anvil.rpcUrl), transport: http(anvil.rpcUrl) });
      const receipt = await reader.getTransactionReceipt({ hash: receiptHeader.value.transaction as Hex });
      expect(receipt.status).toBe('success');
      expect(receipt.from.toLowerCase()).toBe(facilitator.settlementAddress(CHAIN_ID).toLowerCase());

      expect(await balances()).toEqual({
        ...before,
        payer: before.payer - FIVE_USD,
        merchant: before.merchant + FIVE_USD,
      });
    } finally {
      await server.close();
    }
  });

  it('verifies an official payload and returns the authorization a workflow needs', async () => {
    const payload = await pay(payer);
    const result = await facilitator.verifyPayment(payload, requirements());
    expect(result).toMatchObject({
      ok: true,
      payer: payer.address,
      chainId: CHAIN_ID,
      network: NETWORK,
      asset: token.address,
      authorization: {
        from: payer.address,
        to: merchant.address,
        value: FIVE_USD.toString(),
        validAfter: expect.stringMatching(/^\d+$/),
        validBefore: expect.stringMatching(/^\d+$/),
      },
    });
    if (!result.ok) return;
    expect(result.authorization.nonce).toMatch(/^0x[0-9a-f]{64}$/);
    expect(Number(result.authorization.validBefore)).toBeGreaterThan(now());
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });

  it('runs the durable steps: submit, receipt, authorizationState, and reconciles a replay', async () => {
    const payload = await pay(payer);
    const verified = await facilitator.verifyPayment(payload, requirements());
    expect(verified.ok).toBe(true);
    if (!verified.ok) return;
    const ref = {
      network: verified.network,
      asset: verified.asset,
      from: verified.authorization.from,
      nonce: verified.authorization.nonce,
    };
    expect(await facilitator.authorizationState(ref)).toBe(false);
    const before = await balances();

    const submitted = await facilitator.submitSettlement(verified);
    expect(submitted.ok).toBe(true);
    if (!submitted.ok) return;
    const receipt = await facilitator.waitForReceipt({ network: verified.network, txHash: submitted.txHash });
    expect(receipt).toMatchObject({ status: 'confirmed', txHash: submitted.txHash });
    expect(await facilitator.authorizationState(ref)).toBe(true);
    expect(await balances()).toEqual({
      ...before,
      payer: before.payer - FIVE_USD,
      merchant: before.merchant + FIVE_USD,
    });

    // A retried activity finds the nonce used: a value it can reconcile, not an exception.
    const again = await facilitator.submitSettlement(verified);
    expect(again).toMatchObject({ ok: false, code: 'nonce_already_used' });
    expect(await facilitator.findAuthorizationUse({ ...ref, fromBlock: 0n })).toEqual({
      kind: 'used',
      txHash: submitted.txHash,
      blockNumber: receipt.status === 'confirmed' ? receipt.blockNumber : '',
    });
    expect(await balances()).toEqual({
      ...before,
      payer: before.payer - FIVE_USD,
      merchant: before.merchant + FIVE_USD,
    });

    const unknownTx = toHex(randomBytes(32));
    expect(await facilitator.waitForReceipt({ network: verified.network, txHash: unknownTx, timeoutMs: 300 })).toEqual({
      status: 'pending',
      txHash: unknownTx,
    });
    expect(
      await facilitator.findAuthorizationUse({ ...ref, nonce: toHex(randomBytes(32)), fromBlock: 0n }),
    ).toBeUndefined();
  });

  it('refuses to submit a badly signed settlement and moves nothing', async () => {
    const payload = await pay(payer);
    const verified = await facilitator.verifyPayment(payload, requirements());
    if (!verified.ok) throw new Error(`expected a valid payment, got ${verified.code}`);
    const before = await balances();
    const forged = await stranger.signMessage({ message: 'not an authorization' });
    expect(await facilitator.submitSettlement({ ...verified, signature: forged })).toMatchObject({
      ok: false,
      code: 'invalid_signature',
    });
    expect(await balances()).toEqual(before);
  });

  describe('refusals with stable codes and no funds moved', () => {
    it('amount mismatch', async () => {
      const payload = await pay(payer);
      await expectRefused(payload, requirements({}, FIVE_USD * 2n), 'amount_mismatch');
      const tampered = structuredClone(payload);
      (tampered.payload.authorization as { value: string }).value = '1';
      await expectRefused(tampered, requirements(), 'amount_mismatch');
    });

    it('payTo mismatch', async () => {
      const payload = await pay(payer);
      await expectRefused(payload, requirements({ payTo: otherPayee.address }), 'pay_to_mismatch');
    });

    it('wrong network, and a network we do not serve', async () => {
      const payload = await pay(payer);
      const base = getToken(8453, 'USDC')!;
      const onBase = paymentRequirements({ chainId: 8453, token: base, amount: FIVE_USD, payTo: merchant.address });
      await expectRefused(payload, onBase, 'network_mismatch');
      await expectRefused(payload, requirements({ network: 'eip155:999' }), 'unsupported_network');
    });

    it('asset mismatch and an asset we do not serve', async () => {
      const payload = await pay(payer);
      const otherAsset = structuredClone(payload);
      otherAsset.accepted.asset = getToken(CHAIN_ID, 'EURC', table)!.address;
      await expectRefused(otherAsset, requirements(), 'asset_mismatch');
      await expectRefused(payload, requirements({ asset: stranger.address }), 'asset_not_supported');
      await expectRefused(
        payload,
        requirements({ extra: { name: 'USD Coin', version: '2' } }),
        'token_domain_mismatch',
      );
    });

    it('expired and not-yet-valid authorizations', async () => {
      await expectRefused(
        await handSigned({ validAfter: 0, validBefore: now() - 60 }),
        requirements(),
        'authorization_expired',
      );
      await expectRefused(
        await handSigned({ validAfter: now() + 3600, validBefore: now() + 7200 }),
        requirements(),
        'authorization_not_yet_valid',
      );
    });

    it('bad signatures', async () => {
      await expectRefused(
        await handSigned({ signer: stranger, validAfter: 0, validBefore: now() + 600 }),
        requirements(),
        'invalid_signature',
      );
      const garbled = structuredClone(await pay(payer));
      garbled.payload.signature = toHex(randomBytes(65));
      await expectRefused(garbled, requirements(), 'invalid_signature');
    });

    it('insufficient token balance', async () => {
      expect(await balance(brokePayer.address)).toBe(0n);
      await expectRefused(await pay(brokePayer), requirements(), 'insufficient_balance');
    });

    it('nonce already used on chain', async () => {
      const payload = await pay(payer);
      const first = await facilitator.settlePayment(payload, requirements());
      expect(first.ok).toBe(true);
      await expectRefused(payload, requirements(), 'nonce_already_used');
    });

    it('malformed payloads', async () => {
      const good = await pay(payer);
      const cases: unknown[] = [
        null,
        'x',
        {},
        { ...good, x402Version: 1 },
        { ...good, accepted: undefined },
        { ...good, payload: { signature: '0x12' } },
        {
          ...good,
          payload: { ...good.payload, authorization: { ...(good.payload.authorization as object), value: '-5' } },
        },
        {
          ...good,
          payload: { ...good.payload, authorization: { ...(good.payload.authorization as object), nonce: '0x1234' } },
        },
      ];
      for (const bad of cases) await expectRefused(bad, requirements(), 'malformed_payload');
      await expectRefused(
        { ...good, payload: { permit2Authorization: {}, signature: '0x12' } },
        requirements(),
        'unsupported_transfer_method',
      );
    });

    it('only ever answers with a known code', async () => {
      const results: VerifyResult[] = [
        await facilitator.verifyPayment({}, requirements()),
        await facilitator.verifyPayment(await pay(brokePayer), requirements()),
      ];
      for (const r of results) {
        expect(r.ok).toBe(false);
        if (!r.ok) expect(VERIFY_FAILURE_CODES).toContain(r.code);
      }
    });
  });

  describe('an external facilitator over HTTP behind the same interface', () => {
    let server: { url: string; close(): Promise<void> };

    beforeAll(async () => {
      // A stand-in external facilitator: @x402/core's x402Facilitator with @x402/evm's exact scheme.
      const account = devAccount(7);
      const chain = viemChain(CHAIN_ID, anvil.rpcUrl);
      const reader = createPublicClient({ chain, transport: http(anvil.rpcUrl) });
      const writer = createWalletClient({ account, chain, transport: http(anvil.rpcUrl) });
      const signer = facilitatorSigner(reader, writer, 30_000);
      const external = new x402Facilitator().register(NETWORK, new ExactEvmFacilitatorScheme(signer));
      server = await listen(async (req, res) => {
        const body = (await readJson(req)) as {
          paymentPayload: PaymentPayload;
          paymentRequirements: PaymentRequirements;
        };
        const result =
          req.url === '/verify'
            ? await external.verify(body.paymentPayload, body.paymentRequirements)
            : await external.settle(body.paymentPayload, body.paymentRequirements);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(result));
      });
    });

    afterAll(async () => {
      await server?.close();
    });

    it('verifies and settles through the remote facilitator', async () => {
      const remote = createRemoteFacilitator({ url: server.url, networks: table, timeoutMs: 20_000 });
      expect(remote.kind).toBe('remote');
      const payload = await pay(payer);
      expect(await remote.verifyPayment(payload, requirements())).toMatchObject({ ok: true, payer: payer.address });
      const before = await balances();
      const settled = await remote.settlePayment(payload, requirements());
      expect(settled).toMatchObject({
        ok: true,
        payer: payer.address,
        network: NETWORK,
        txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
      expect(await balances()).toEqual({
        ...before,
        payer: before.payer - FIVE_USD,
        merchant: before.merchant + FIVE_USD,
      });
      expect(await remote.verifyPayment(payload, requirements())).toMatchObject({
        ok: false,
        code: 'nonce_already_used',
      });
    });

    it("maps the remote facilitator's refusals onto the same codes", async () => {
      const remote = createRemoteFacilitator({ url: server.url, networks: table });
      const before = await balances();
      expect(await remote.verifyPayment(await pay(brokePayer), requirements())).toMatchObject({
        ok: false,
        code: 'insufficient_balance',
      });
      const forged = await handSigned({ signer: stranger, validAfter: 0, validBefore: now() + 600 });
      expect(await remote.settlePayment(forged, requirements())).toMatchObject({
        ok: false,
        code: 'invalid_signature',
      });
      expect(await remote.verifyPayment(await pay(payer), requirements({}, 1n))).toMatchObject({
        ok: false,
        code: 'amount_mismatch',
      });
      expect(await balances()).toEqual(before);
    });
  });
});
