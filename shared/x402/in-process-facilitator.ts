import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { eip3009ABI, toFacilitatorEvmSigner, type FacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  http,
  isErc6492Signature,
  nonceManager,
  parseErc6492Signature,
  parseSignature,
  TransactionReceiptNotFoundError,
  type Hex,
  type PublicClient,
  type WalletClient,
  type Account,
  type Chain,
  type Transport,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainIdOf, SUPPORTED_NETWORKS, viemChain, type CaipNetwork, type NetworkTable } from './networks';
import {
  type AuthorizationRef,
  type AuthorizationUse,
  type InProcessFacilitator,
  type ReceiptResult,
  type SettleResult,
  type SettlementRequest,
  type SubmitResult,
  type VerifyResult,
} from './facilitator-types';
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
      readContract: (args) => reader.readContract({ ...args, args: args.args ?? [] } as Parameters<typeof reader.readContract>[0]),
      verifyTypedData: (args) => reader.verifyTypedData(args as Parameters<typeof reader.verifyTypedData>[0]),
      writeContract: (args) => writer.writeContract(args as Parameters<typeof writer.writeContract>[0]),
      sendTransaction: (args) => writer.sendTransaction(args as Parameters<typeof writer.sendTransaction>[0]),
      waitForTransactionReceipt: (args) => reader.waitForTransactionReceipt(args),
      getCode: (args) => reader.getCode(args),
    },
    { confirmationTimeoutMs: receiptTimeoutMs },
  );
}

const authorizationEventsAbi = [
  {
    type: 'event',
    name: 'AuthorizationUsed',
    inputs: [
      { name: 'authorizer', type: 'address', indexed: true },
      { name: 'nonce', type: 'bytes32', indexed: true },
    ],
  },
  {
    type: 'event',
    name: 'AuthorizationCanceled',
    inputs: [
      { name: 'authorizer', type: 'address', indexed: true },
      { name: 'nonce', type: 'bytes32', indexed: true },
    ],
  },
] as const;

export function createInProcessFacilitator(config: InProcessFacilitatorConfig): InProcessFacilitator {
  const table = config.networks ?? SUPPORTED_NETWORKS;
  const receiptTimeoutMs = config.receiptTimeoutMs ?? 120_000;
  const receiptPollMs = config.receiptPollMs ?? 1_000;
  const runtimes = new Map<number, ChainRuntime>();
  for (const c of config.chains) {
    const chain = viemChain(c.chainId, c.rpcUrl);
    const transport = http(c.rpcUrl);
    // nonceManager hands out nonces locally so concurrent settlements from one key do not collide.
    const account = privateKeyToAccount(c.settlementPrivateKey, { nonceManager });
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
    if (!rt) return fail('unsupported_network', `no settlement chain configured for ${requirements.network}`, request.authorization.from);
    const response = await rt.scheme.verify(parsed, requirements);
    if (!response.isValid) return verifyFailure(response, request.authorization.from);
    return verifiedResult(checked.checked);
  }

  async function settlePayment(payload: unknown, requirements: PaymentRequirements): Promise<SettleResult> {
    const verified = await verifyPayment(payload, requirements);
    if (!verified.ok) return verified;
    const rt = requireRuntime(requirements.network);
    const response = await rt.scheme.settle(payload as PaymentPayload, requirements);
    return settleOutcome(response, verified.payer, verified.network);
  }

  async function submitSettlement(request: SettlementRequest): Promise<SubmitResult> {
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
      const { request: tx } = await rt.reader.simulateContract({
        account: rt.account,
        address: request.asset,
        abi: eip3009ABI,
        functionName: 'transferWithAuthorization',
        args,
      } as Parameters<typeof rt.reader.simulateContract>[0]);
      const txHash = await rt.writer.writeContract(tx as Parameters<typeof rt.writer.writeContract>[0]);
      return { ok: true, txHash };
    } catch (err) {
      const reverted = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : null;
      if (!(reverted instanceof ContractFunctionRevertedError)) throw err;
      const reason = reverted.reason ?? reverted.shortMessage;
      return fail(codeForRevert(reason), reason, payer);
    }
  }

  // Polled by hand: viem's waitForTransactionReceipt keeps retrying in the background after its timeout.
  async function waitForReceipt(args: { network: CaipNetwork; txHash: Hex; timeoutMs?: number }): Promise<ReceiptResult> {
    const rt = requireRuntime(args.network);
    const deadline = Date.now() + (args.timeoutMs ?? receiptTimeoutMs);
    for (;;) {
      const receipt = await rt.reader.getTransactionReceipt({ hash: args.txHash }).catch((err: unknown) => {
        if (err instanceof TransactionReceiptNotFoundError) return undefined;
        throw err;
      });
      if (receipt) {
        const blockNumber = receipt.blockNumber.toString();
        return receipt.status === 'success'
          ? { status: 'confirmed', txHash: args.txHash, blockNumber }
          : { status: 'reverted', txHash: args.txHash, blockNumber };
      }
      const left = deadline - Date.now();
      if (left <= 0) return { status: 'pending', txHash: args.txHash };
      await new Promise((resolve) => setTimeout(resolve, Math.min(receiptPollMs, left)));
    }
  }

  async function authorizationState(ref: AuthorizationRef): Promise<boolean> {
    const rt = requireRuntime(ref.network);
    const used = await rt.reader.readContract({
      address: ref.asset,
      abi: eip3009ABI,
      functionName: 'authorizationState',
      args: [ref.from, ref.nonce],
    });
    return used === true;
  }

  async function findAuthorizationUse(ref: AuthorizationRef & { fromBlock: bigint }): Promise<AuthorizationUse | undefined> {
    const rt = requireRuntime(ref.network);
    for (const event of authorizationEventsAbi) {
      const logs = await rt.reader.getLogs({
        address: ref.asset,
        event,
        args: { authorizer: ref.from, nonce: ref.nonce },
        fromBlock: ref.fromBlock,
        toBlock: 'latest',
      });
      const log = logs.find((l) => l.transactionHash && l.blockNumber !== null);
      if (log?.transactionHash && log.blockNumber !== null) {
        return {
          kind: event.name === 'AuthorizationUsed' ? 'used' : 'canceled',
          txHash: log.transactionHash,
          blockNumber: log.blockNumber.toString(),
        };
      }
    }
    return undefined;
  }

  return {
    kind: 'in_process',
    settlementAddress: (chainId) => {
      const rt = runtimes.get(chainId);
      if (!rt) throw new Error(`no settlement chain configured for chain ${chainId}`);
      return rt.account.address;
    },
    verifyPayment,
    settlePayment,
    submitSettlement,
    waitForReceipt,
    authorizationState,
    findAuthorizationUse,
  };
}
