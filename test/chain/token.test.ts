import { randomBytes } from 'node:crypto';
import { authorizationTypes } from '@x402/evm';
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  hashDomain,
  type Hex,
  http,
  type LocalAccount,
  parseEventLogs,
  parseSignature,
  toHex,
} from 'viem';
import { type RunningAnvil, startAnvil } from '../../scripts/services/anvil';
import { deployToken, mintTokens, tokenBalance } from '../../shared/payments/chain/deploy-token';
import { devAccount } from '../../shared/payments/chain/dev-accounts';
import { loadTokenArtifact } from '../../shared/payments/chain/token-artifact';
import { viemChain } from '../../shared/payments/x402/networks';

const CHAIN_ID = 84532;
const relayer = devAccount(1);
const payee = devAccount(2);
const payer = devAccount(3);
const stranger = devAccount(5);

const authTypes = authorizationTypes;

describe('LocalStablecoin on a real anvil chain', () => {
  let anvil: RunningAnvil;
  let token: Address;
  let abi: Abi;
  let reader: ReturnType<typeof createPublicClient>;
  let relayerWallet: ReturnType<typeof createWalletClient>;

  const balance = (owner: Address) => tokenBalance({ rpcUrl: anvil.rpcUrl, chainId: CHAIN_ID, token, owner });
  const now = () => BigInt(Math.floor(Date.now() / 1000));
  const newNonce = (): Hex => toHex(randomBytes(32));

  async function sign(
    signer: LocalAccount,
    message: { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex },
  ): Promise<Hex> {
    return signer.signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: CHAIN_ID, verifyingContract: token },
      types: authTypes,
      primaryType: 'TransferWithAuthorization',
      message,
    });
  }

  /** Sends transferWithAuthorization from the relayer and waits; resolves to the receipt. */
  async function relay(
    args: { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex },
    signature: Hex,
    overload: 'vrs' | 'bytes' = 'vrs',
  ) {
    const base = [args.from, args.to, args.value, args.validAfter, args.validBefore, args.nonce] as const;
    const sig = parseSignature(signature);
    const fullArgs = overload === 'vrs' ? [...base, Number(sig.v), sig.r, sig.s] : [...base, signature];
    const hash = await relayerWallet.writeContract({
      address: token,
      abi,
      functionName: 'transferWithAuthorization',
      args: fullArgs,
      account: relayer,
      chain: viemChain(CHAIN_ID, anvil.rpcUrl),
    });
    return reader.waitForTransactionReceipt({ hash });
  }

  beforeAll(async () => {
    anvil = await startAnvil({ port: 0, chainId: CHAIN_ID });
    ({ abi } = await loadTokenArtifact());
    ({ address: token } = await deployToken({
      rpcUrl: anvil.rpcUrl,
      chainId: CHAIN_ID,
      name: 'USD Coin',
      symbol: 'USDC',
      version: '2',
    }));
    const chain = viemChain(CHAIN_ID, anvil.rpcUrl);
    reader = createPublicClient({ chain, transport: http(anvil.rpcUrl) });
    relayerWallet = createWalletClient({ chain, transport: http(anvil.rpcUrl) });
    await mintTokens({ rpcUrl: anvil.rpcUrl, chainId: CHAIN_ID, token, to: payer.address, amount: 100_000_000n });
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  it('announces the EIP-712 domain it was deployed with', async () => {
    const read = (functionName: string) => reader.readContract({ address: token, abi, functionName });
    expect(await read('name')).toBe('USD Coin');
    expect(await read('symbol')).toBe('USDC');
    expect(await read('version')).toBe('2');
    expect(await read('decimals')).toBe(6);
    const eip712Domain = [
      { name: 'name', type: 'string' },
      { name: 'version', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
    ] as const;
    expect(await read('DOMAIN_SEPARATOR')).toBe(
      hashDomain({
        domain: { name: 'USD Coin', version: '2', chainId: BigInt(CHAIN_ID), verifyingContract: token },
        types: { EIP712Domain: eip712Domain },
      }),
    );
  });

  it('mints to anyone', async () => {
    expect(await balance(payer.address)).toBe(100_000_000n);
    expect(await balance(stranger.address)).toBe(0n);
  });

  it('moves funds on a signed authorization, once', async () => {
    const auth = {
      from: payer.address,
      to: payee.address,
      value: 5_000_000n,
      validAfter: 0n,
      validBefore: now() + 3600n,
      nonce: newNonce(),
    };
    const signature = await sign(payer, auth);
    const [payerBefore, payeeBefore] = [await balance(payer.address), await balance(payee.address)];

    const receipt = await relay(auth, signature);
    expect(receipt.status).toBe('success');
    expect(await balance(payer.address)).toBe(payerBefore - 5_000_000n);
    expect(await balance(payee.address)).toBe(payeeBefore + 5_000_000n);
    const used = parseEventLogs({ abi, logs: receipt.logs, eventName: 'AuthorizationUsed' }) as unknown as Array<{
      args: { authorizer: Address; nonce: Hex };
    }>;
    expect(used).toHaveLength(1);
    expect(used[0]!.args).toEqual({ authorizer: payer.address, nonce: auth.nonce });
    expect(
      await reader.readContract({
        address: token,
        abi,
        functionName: 'authorizationState',
        args: [payer.address, auth.nonce],
      }),
    ).toBe(true);

    await expect(relay(auth, signature)).rejects.toThrow('FiatTokenV2: authorization is used or canceled');
    await expect(relay(auth, signature, 'bytes')).rejects.toThrow('FiatTokenV2: authorization is used or canceled');
    expect(await balance(payee.address)).toBe(payeeBefore + 5_000_000n);
  });

  it('accepts the bytes-signature overload', async () => {
    const auth = {
      from: payer.address,
      to: payee.address,
      value: 1n,
      validAfter: 0n,
      validBefore: now() + 3600n,
      nonce: newNonce(),
    };
    const before = await balance(payee.address);
    expect((await relay(auth, await sign(payer, auth), 'bytes')).status).toBe('success');
    expect(await balance(payee.address)).toBe(before + 1n);
  });

  it('refuses expired, not-yet-valid, wrongly signed and unfunded authorizations', async () => {
    const base = {
      from: payer.address,
      to: payee.address,
      value: 1_000_000n,
      validAfter: 0n,
      validBefore: now() + 3600n,
    };
    const expired = { ...base, validBefore: now() - 1n, nonce: newNonce() };
    await expect(relay(expired, await sign(payer, expired))).rejects.toThrow('FiatTokenV2: authorization is expired');

    const early = { ...base, validAfter: now() + 3600n, validBefore: now() + 7200n, nonce: newNonce() };
    await expect(relay(early, await sign(payer, early))).rejects.toThrow('FiatTokenV2: authorization is not yet valid');

    const forged = { ...base, nonce: newNonce() };
    await expect(relay(forged, await sign(stranger, forged))).rejects.toThrow('FiatTokenV2: invalid signature');
    const tampered = { ...base, nonce: newNonce() };
    await expect(relay({ ...tampered, value: 2_000_000n }, await sign(payer, tampered))).rejects.toThrow(
      'FiatTokenV2: invalid signature',
    );

    const unfunded = { ...base, from: stranger.address, nonce: newNonce() };
    await expect(relay(unfunded, await sign(stranger, unfunded))).rejects.toThrow(
      'ERC20: transfer amount exceeds balance',
    );
    expect(
      await reader.readContract({
        address: token,
        abi,
        functionName: 'authorizationState',
        args: [stranger.address, unfunded.nonce],
      }),
    ).toBe(false);
  });

  it('cancels an unused authorization so it can no longer be used', async () => {
    const auth = {
      from: payer.address,
      to: payee.address,
      value: 1n,
      validAfter: 0n,
      validBefore: now() + 3600n,
      nonce: newNonce(),
    };
    const signature = await sign(payer, auth);
    const cancelSig = await payer.signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: CHAIN_ID, verifyingContract: token },
      types: {
        CancelAuthorization: [
          { name: 'authorizer', type: 'address' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce: auth.nonce },
    });
    const hash = await relayerWallet.writeContract({
      address: token,
      abi,
      functionName: 'cancelAuthorization',
      args: [payer.address, auth.nonce, cancelSig],
      account: relayer,
      chain: viemChain(CHAIN_ID, anvil.rpcUrl),
    });
    expect((await reader.waitForTransactionReceipt({ hash })).status).toBe('success');
    await expect(relay(auth, signature)).rejects.toThrow('FiatTokenV2: authorization is used or canceled');
  });

  it('lets only the payee redeem receiveWithAuthorization', async () => {
    const auth = {
      from: payer.address,
      to: payee.address,
      value: 3n,
      validAfter: 0n,
      validBefore: now() + 3600n,
      nonce: newNonce(),
    };
    const signature = await payer.signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: CHAIN_ID, verifyingContract: token },
      types: { ReceiveWithAuthorization: authTypes.TransferWithAuthorization },
      primaryType: 'ReceiveWithAuthorization',
      message: auth,
    });
    const args = [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, signature];
    const chain = viemChain(CHAIN_ID, anvil.rpcUrl);
    await expect(
      relayerWallet.writeContract({
        address: token,
        abi,
        functionName: 'receiveWithAuthorization',
        args,
        account: relayer,
        chain,
      }),
    ).rejects.toThrow('FiatTokenV2: caller must be the payee');
    const before = await balance(payee.address);
    const hash = await relayerWallet.writeContract({
      address: token,
      abi,
      functionName: 'receiveWithAuthorization',
      args,
      account: payee,
      chain,
    });
    expect((await reader.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await balance(payee.address)).toBe(before + 3n);
  });
});
