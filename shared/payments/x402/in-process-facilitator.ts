import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { eip3009ABI, type FacilitatorEvmSigner, toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import {
  type Account,
  BaseError,
  type Chain,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  isErc6492Signature,
  keccak256,
  parseErc6492Signature,
  parseSignature,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ChainUnavailableError, isChainTransportError, stripUrls } from './chain-errors';
import { chainTransport, createChainReader, type ReceiptResult } from './chain-reader';
import {
  type Failure,
  type InProcessFacilitator,
  type PreparedSettlement,
  type SettleFailureCode,
  type SettlementRequest,
  type SettleResult,
  type SubmitResult,
  type VerifyResult,
} from './facilitator-types';
import { type CaipNetwork, chainIdOf, type NetworkTable, SUPPORTED_NETWORKS, viemChain } from './networks';
import {
  checkPaymentAgainstRequirements,
  codeForRevert,
  fail,
  settleOutcome,
  verifiedResult,
  verifyFailure,
} from './payment-checks';

export interface ChainSettlementConfig {
  chainId: number;
  rpcUrl: string;
  /** Pays gas for settlements on this chain. Never logged. */
  settlementPrivateKey: Hex;
}

export interface InProcessFacilitatorConfig {
  chains: ChainSettlementConfig[];
  /** The served networks/tokens, with local overrides applied. */
  networks?: NetworkTable;
  /** Default bound on receipt waits (settlePayment and waitForReceipt). */
  receiptTimeoutMs?: number;
  /** How often waitForReceipt asks for the receipt. */
  receiptPollMs?: number;
  /** Deadline of one RPC call; verification runs inside a request, so keep it short. */
  rpcTimeoutMs?: number;
  /** Widest eth_getLogs range asked for at once when reconciling. */
  logWindowBlocks?: bigint;
}

interface ChainRuntime {
  chainId: number;
  account: Account;
  reader: PublicClient<Transport, Chain>;
  writer: WalletClient<Transport, Chain, Account>;
  scheme: ExactEvmScheme;
}

/** @x402/evm's facilitator signer over a viem reader and writer. */
export function facilitatorSigner(
  reader: PublicClient<Transport, Chain>,
  writer: WalletClient<Transport, Chain, Account>,
  receiptTimeoutMs: number,
): FacilitatorEvmSigner {
  // The package types these loosely (unknown[] ABIs); viem's generics are stricter, hence the casts.
  return toFacilitatorEvmSigner(
    {
      address: writer.account.address,
      readContract: (args) =>
        reader.readContract({ ...args, args: args.args ?? [] } as Parameters<typeof reader.readContract>[0]),
      verifyTypedData: (args) => reader.verifyTypedData(args as Parameters<typeof reader.verifyTypedData>[0]),
      writeContract: (args) => writer.writeContract(args as Parameters<typeof writer.writeContract>[0]),
      sendTransaction: (args) => writer.sendTransaction(args as Parameters<typeof writer.sendTransaction>[0]),
      waitForTransactionReceipt: (args) => reader.waitForTransactionReceipt(args),
      getCode: (args) => reader.getCode(args),
    },
    { confirmationTimeoutMs: receiptTimeoutMs },
  );
}

export function createInProcessFacilitator(config: InProcessFacilitatorConfig): InProcessFacilitator {
  const table = config.networks ?? SUPPORTED_NETWORKS;
  const receiptTimeoutMs = config.receiptTimeoutMs ?? 120_000;
  const receiptPollMs = config.receiptPollMs ?? 1_000;
  const runtimes = new Map<number, ChainRuntime>();
  const chainReader = createChainReader({
    chains: config.chains,
    timeoutMs: config.rpcTimeoutMs,
    logWindowBlocks: config.logWindowBlocks,
  });
  for (const c of config.chains) {
    const chain = viemChain(c.chainId, c.rpcUrl);
    const transport = chainTransport(c.rpcUrl, { timeoutMs: config.rpcTimeoutMs });
    // No viem nonceManager: it is per process. The durable settlement takes account nonces from
    // a claim in the store (shared/payments/nonce-claims.ts) and signs with them explicitly.
    const account = privateKeyToAccount(c.settlementPrivateKey);
    const reader = createPublicClient({ chain, transport }) as PublicClient<Transport, Chain>;
    const writer = createWalletClient({ account, chain, transport });
    const scheme = new ExactEvmScheme(facilitatorSigner(reader, writer, receiptTimeoutMs));
    runtimes.set(c.chainId, { chainId: c.chainId, account, reader, writer, scheme });
  }

  function runtimeFor(network: string): ChainRuntime | undefined {
    const chainId = chainIdOf(network);
    return chainId === undefined ? undefined : runtimes.get(chainId);
  }

  function requireRuntime(network: string): ChainRuntime {
    const rt = runtimeFor(network);
    if (!rt) throw new Error(`no settlement chain configured for ${network}`);
    return rt;
  }

  async function verifyPayment(payload: unknown, requirements: PaymentRequirements): Promise<VerifyResult> {
    const checked = checkPaymentAgainstRequirements(payload, requirements, table);
    if (!checked.ok) return checked;
    const { payload: parsed, request } = checked.checked;
    const rt = runtimeFor(requirements.network);
    if (!rt)
      return fail(
        'unsupported_network',
        `no settlement chain configured for ${requirements.network}`,
        request.authorization.from,
      );
    // The block number read beside verification does two jobs: it is where a later log search
    // for this authorization starts (it cannot have been used before), and it tells a dead RPC
    // (the package's verify turns RPC failures into "simulation failed") from a bad payment.
    const [block, response] = await Promise.allSettled([
      chainReader.blockNumber(requirements.network as CaipNetwork),
      rt.scheme.verify(parsed, requirements),
    ]);
    if (block.status === 'rejected')
      throw block.reason instanceof ChainUnavailableError ? block.reason : new ChainUnavailableError();
    if (response.status === 'rejected') {
      if (isChainTransportError(response.reason)) throw new ChainUnavailableError();
      throw response.reason;
    }
    if (!response.value.isValid) return verifyFailure(response.value, request.authorization.from);
    return { ...verifiedResult(checked.checked), blockNumber: block.value.toString() } as VerifyResult;
  }

  async function settlePayment(payload: unknown, requirements: PaymentRequirements): Promise<SettleResult> {
    const verified = await verifyPayment(payload, requirements);
    if (!verified.ok) return verified;
    const rt = requireRuntime(requirements.network);
    const response = await rt.scheme.settle(payload as PaymentPayload, requirements);
    return settleOutcome(response, verified.payer, verified.network);
  }

  /** Simulates transferWithAuthorization; a revert is a value, the transaction is returned unsigned. */
  async function prepareSettlement(
    request: SettlementRequest,
  ): Promise<PreparedSettlement | Failure<SettleFailureCode>> {
    const rt = runtimeFor(request.network);
    const payer = request.authorization.from;
    if (!rt) return fail('unsupported_network', `no settlement chain configured for ${request.network}`, payer);
    const a = request.authorization;
    const base = [a.from, a.to, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce] as const;
    const signature = isErc6492Signature(request.signature)
      ? parseErc6492Signature(request.signature).signature
      : request.signature;
    // 65-byte ECDSA goes through the (v,r,s) overload every FiatToken version has; anything else
    // (ERC-1271 wallets) needs the `bytes signature` overload.
    const args =
      signature.length === 132
        ? (() => {
            const sig = parseSignature(signature);
            return [...base, Number(sig.v ?? BigInt(sig.yParity + 27)), sig.r, sig.s] as const;
          })()
        : ([...base, signature] as const);
    try {
      await rt.reader.simulateContract({
        account: rt.account,
        address: request.asset,
        abi: eip3009ABI,
        functionName: 'transferWithAuthorization',
        args,
      } as Parameters<typeof rt.reader.simulateContract>[0]);
      const data = encodeFunctionData({
        abi: eip3009ABI,
        functionName: 'transferWithAuthorization',
        args,
      } as Parameters<typeof encodeFunctionData>[0]);
      // Gas, fees and type only: the nonce comes from the caller (a claim in the store).
      const tx = await rt.writer.prepareTransactionRequest({
        to: request.asset,
        data,
        account: rt.account,
        chain: rt.writer.chain,
        parameters: ['fees', 'gas', 'type', 'chainId'],
      } as Parameters<typeof rt.writer.prepareTransactionRequest>[0]);
      return { ok: true, chainId: rt.chainId, from: rt.account.address, tx: tx as unknown as Record<string, unknown> };
    } catch (err) {
      const reverted = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : null;
      if (!(reverted instanceof ContractFunctionRevertedError)) {
        if (isChainTransportError(err)) throw new ChainUnavailableError();
        throw err;
      }
      const reason = stripUrls(reverted.reason ?? reverted.shortMessage);
      return fail(codeForRevert(reason), reason, payer);
    }
  }

  /** Signs a prepared settlement with an explicit account nonce; nothing is sent. */
  async function signSettlement(prepared: PreparedSettlement, nonce: number): Promise<{ raw: Hex; txHash: Hex }> {
    const rt = runtimes.get(prepared.chainId);
    if (!rt?.account.signTransaction) throw new Error(`no settlement signer for chain ${prepared.chainId}`);
    const raw = await rt.account.signTransaction({ ...(prepared.tx as object), nonce } as Parameters<
      NonNullable<Account['signTransaction']>
    >[0]);
    return { raw, txHash: keccak256(raw) };
  }

  /** Simulates, signs with the account's pending nonce and broadcasts (one-off use: tests, bench). */
  async function submitSettlement(request: SettlementRequest): Promise<SubmitResult> {
    const prepared = await prepareSettlement(request);
    if (!prepared.ok) return prepared;
    const nonce = await chainReader.accountNonce(request.network, prepared.from, 'pending');
    const { raw, txHash } = await signSettlement(prepared, nonce);
    await chainReader.sendRaw(request.network, raw);
    return { ok: true, txHash };
  }

  // Polled by hand: viem's waitForTransactionReceipt keeps retrying in the background after its timeout.
  async function waitForReceipt(args: {
    network: CaipNetwork;
    txHash: Hex;
    timeoutMs?: number;
  }): Promise<ReceiptResult> {
    requireRuntime(args.network);
    const deadline = Date.now() + (args.timeoutMs ?? receiptTimeoutMs);
    for (;;) {
      const receipt = await chainReader.receipt(args.network, args.txHash);
      if (receipt.status !== 'pending') return receipt;
      const left = deadline - Date.now();
      if (left <= 0) return receipt;
      await new Promise((resolve) => setTimeout(resolve, Math.min(receiptPollMs, left)));
    }
  }

  return {
    kind: 'in_process',
    settlementAddress: (chainId) => {
      const rt = runtimes.get(chainId);
      if (!rt) throw new Error(`no settlement chain configured for chain ${chainId}`);
      return rt.account.address;
    },
    chain: chainReader,
    verifyPayment,
    settlePayment,
    prepareSettlement,
    signSettlement,
    submitSettlement,
    waitForReceipt,
    authorizationState: chainReader.authorizationState,
    findAuthorizationUse: chainReader.findAuthorizationUse,
  };
}
