import { HTTPFacilitatorClient, type FacilitatorConfig } from '@x402/core/http';
import { PaymentPayloadV2Schema } from '@x402/core/schemas';
import type {
  PaymentPayload,
  PaymentRequirements,
  SettleError,
  SettleResponse,
  VerifyError,
  VerifyResponse,
} from '@x402/core/types';
import { eip3009ABI, toFacilitatorEvmSigner, type FacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  isAddress,
  isErc6492Signature,
  nonceManager,
  parseErc6492Signature,
  parseSignature,
  TransactionReceiptNotFoundError,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
  type Account,
  type Chain,
  type Transport,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  chainIdOf,
  findTokenByAddress,
  SUPPORTED_NETWORKS,
  viemChain,
  type CaipNetwork,
  type NetworkTable,
} from './networks';

// ------------------------------------------------------------------ result types

/** Stable codes for a payment we refuse. Callers switch on these; never on messages. */
export const VERIFY_FAILURE_CODES = [
  'malformed_payload',
  'unsupported_scheme',
  'unsupported_transfer_method',
  'unsupported_network',
  'network_mismatch',
  'asset_not_supported',
  'asset_mismatch',
  'pay_to_mismatch',
  'amount_mismatch',
  'token_domain_mismatch',
  'authorization_expired',
  'authorization_not_yet_valid',
  'nonce_already_used',
  'invalid_signature',
  'insufficient_balance',
  'smart_wallet_not_supported',
  'simulation_failed',
  'verification_failed',
] as const;
export type VerifyFailureCode = (typeof VERIFY_FAILURE_CODES)[number];

/** Settlement adds outcomes only a broadcast can have. */
export const SETTLE_FAILURE_CODES = [
  ...VERIFY_FAILURE_CODES,
  'settlement_reverted',
  'settlement_pending',
  'settlement_failed',
] as const;
export type SettleFailureCode = (typeof SETTLE_FAILURE_CODES)[number];

/** EIP-3009 authorization as signed; integers are decimal strings so it serializes as JSON. */
export interface Eip3009Authorization {
  from: Address;
  to: Address;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

/** Everything a settlement needs, as a verified payment hands it to a workflow. */
export interface SettlementRequest {
  network: CaipNetwork;
  asset: Address;
  authorization: Eip3009Authorization;
  signature: Hex;
}

export type Failure<C extends string> = { ok: false; code: C; message: string; payer?: Address };

export type VerifyResult =
  | ({ ok: true; payer: Address; chainId: number; authorization: Eip3009Authorization } & SettlementRequest)
  | Failure<VerifyFailureCode>;

export type SettleResult =
  | { ok: true; payer: Address; network: CaipNetwork; txHash: Hex }
  | (Failure<SettleFailureCode> & { txHash?: Hex });

export type SubmitResult = { ok: true; txHash: Hex } | Failure<SettleFailureCode>;

export type ReceiptResult =
  | { status: 'confirmed'; txHash: Hex; blockNumber: string }
  | { status: 'reverted'; txHash: Hex; blockNumber: string }
  | { status: 'pending'; txHash: Hex };

export type AuthorizationUse =
  | { kind: 'used'; txHash: Hex; blockNumber: string }
  | { kind: 'canceled'; txHash: Hex; blockNumber: string };

export interface AuthorizationRef {
  network: CaipNetwork;
  asset: Address;
  from: Address;
  nonce: Hex;
}

/**
 * What the HTTP layer needs, whether payments are checked in-process or by an external x402
 * facilitator. Expected refusals are values; a thrown error means infrastructure (RPC, network)
 * and is worth retrying.
 */
export interface PaymentFacilitator {
  readonly kind: 'in_process' | 'remote';
  verifyPayment(payload: unknown, requirements: PaymentRequirements): Promise<VerifyResult>;
  /** Verify, broadcast and wait for the receipt in one call. */
  settlePayment(payload: unknown, requirements: PaymentRequirements): Promise<SettleResult>;
}

/** The in-process facilitator also exposes the separate steps of a durable settlement. */
export interface InProcessFacilitator extends PaymentFacilitator {
  readonly kind: 'in_process';
  /** The address that pays gas for settlements on `chainId`. */
  settlementAddress(chainId: number): Address;
  /** Simulates then broadcasts transferWithAuthorization; a revert in simulation is a value, not a throw. */
  submitSettlement(request: SettlementRequest): Promise<SubmitResult>;
  waitForReceipt(args: { network: CaipNetwork; txHash: Hex; timeoutMs?: number }): Promise<ReceiptResult>;
  /** True once the nonce was used (or canceled) on chain. */
  authorizationState(ref: AuthorizationRef): Promise<boolean>;
  /** The transaction that used or canceled the authorization, searching logs from `fromBlock`. */
  findAuthorizationUse(ref: AuthorizationRef & { fromBlock: bigint }): Promise<AuthorizationUse | undefined>;
}

// ------------------------------------------------------------------ mapping the package's reasons

/** @x402/evm `exact` invalid/error reasons (their exported constant values) onto our codes. */
const PACKAGE_REASON_CODES: Readonly<Record<string, SettleFailureCode>> = {
  invalid_exact_evm_scheme: 'unsupported_scheme',
  unsupported_payload_type: 'unsupported_transfer_method',
  invalid_exact_evm_network_mismatch: 'network_mismatch',
  invalid_exact_evm_missing_eip712_domain: 'token_domain_mismatch',
  invalid_exact_evm_token_name_mismatch: 'token_domain_mismatch',
  invalid_exact_evm_token_version_mismatch: 'token_domain_mismatch',
  invalid_exact_evm_recipient_mismatch: 'pay_to_mismatch',
  invalid_exact_evm_signature: 'invalid_signature',
  invalid_exact_evm_failed_to_parse_signature: 'invalid_signature',
  invalid_exact_evm_payload_authorization_valid_before: 'authorization_expired',
  invalid_exact_evm_payload_authorization_valid_after: 'authorization_not_yet_valid',
  invalid_exact_evm_authorization_value: 'amount_mismatch',
  invalid_exact_evm_payload_authorization_value_mismatch: 'amount_mismatch',
  invalid_exact_evm_nonce_already_used: 'nonce_already_used',
  invalid_exact_evm_insufficient_balance: 'insufficient_balance',
  invalid_exact_evm_eip3009_not_supported: 'asset_not_supported',
  asset_not_deployed_contract: 'asset_not_supported',
  invalid_exact_evm_transaction_simulation_failed: 'simulation_failed',
  eip6492_factory_not_allowed: 'smart_wallet_not_supported',
  smart_wallet_deployment_failed: 'smart_wallet_not_supported',
  invalid_exact_evm_transaction_failed: 'settlement_reverted',
  invalid_exact_evm_transfer_event_mismatch: 'settlement_failed',
  invalid_transaction_state: 'settlement_failed',
  settlement_pending: 'settlement_pending',
};

export function codeForPackageReason(reason: string | undefined, fallback: SettleFailureCode): SettleFailureCode {
  if (!reason) return fallback;
  return PACKAGE_REASON_CODES[reason] ?? PACKAGE_REASON_CODES[reason.split(':')[0]!.trim()] ?? fallback;
}

/** FiatTokenV2 / ERC-20 revert strings onto our codes (the same texts LocalStablecoin uses). */
function codeForRevert(message: string): SettleFailureCode {
  if (/authorization is used or canceled/i.test(message)) return 'nonce_already_used';
  if (/authorization is expired/i.test(message)) return 'authorization_expired';
  if (/authorization is not yet valid/i.test(message)) return 'authorization_not_yet_valid';
  if (/invalid signature/i.test(message)) return 'invalid_signature';
  if (/exceeds balance/i.test(message)) return 'insufficient_balance';
  return 'settlement_reverted';
}

// ------------------------------------------------------------------ payload checks (no chain)

interface CheckedPayment {
  payload: PaymentPayload;
  chainId: number;
  request: SettlementRequest;
}

const UINT_STRING = /^(0|[1-9][0-9]{0,77})$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const HEX = /^0x(?:[0-9a-fA-F]{2})+$/;

function fail<C extends string>(code: C, message: string, payer?: Address): Failure<C> {
  return payer ? { ok: false, code, message, payer } : { ok: false, code, message };
}

function parseAuthorization(raw: unknown): { authorization: Eip3009Authorization; signature: Hex } | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { authorization: a, signature } = raw as { authorization?: Record<string, unknown>; signature?: unknown };
  if (typeof a !== 'object' || a === null || typeof signature !== 'string' || !HEX.test(signature)) return undefined;
  const { from, to, value, validAfter, validBefore, nonce } = a;
  const isUint = (v: unknown): v is string => typeof v === 'string' && UINT_STRING.test(v);
  if (typeof from !== 'string' || !isAddress(from, { strict: false })) return undefined;
  if (typeof to !== 'string' || !isAddress(to, { strict: false })) return undefined;
  if (!isUint(value) || !isUint(validAfter) || !isUint(validBefore)) return undefined;
  if (typeof nonce !== 'string' || !BYTES32.test(nonce)) return undefined;
  return {
    authorization: {
      from: getAddress(from),
      to: getAddress(to),
      value,
      validAfter,
      validBefore,
      nonce: nonce.toLowerCase() as Hex,
    },
    signature: signature as Hex,
  };
}

const sameAddress = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/**
 * Everything that can be decided without the chain: the payload's shape, that it answers these
 * requirements (network, asset, payee, amount), and that we serve the network and token at all.
 */
export function checkPaymentAgainstRequirements(
  rawPayload: unknown,
  requirements: PaymentRequirements,
  table: NetworkTable = SUPPORTED_NETWORKS,
): { ok: true; checked: CheckedPayment } | Failure<VerifyFailureCode> {
  const parsed = PaymentPayloadV2Schema.safeParse(rawPayload);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return fail('malformed_payload', `not an x402 v2 payment payload: ${first ? `${first.path.join('.')}: ${first.message}` : 'invalid'}`);
  }
  const payload = parsed.data as PaymentPayload;
  if (typeof payload.payload === 'object' && payload.payload !== null && 'permit2Authorization' in payload.payload) {
    return fail('unsupported_transfer_method', 'only EIP-3009 transferWithAuthorization payments are accepted');
  }
  const eip3009 = parseAuthorization(payload.payload);
  if (!eip3009) return fail('malformed_payload', 'payload.authorization or payload.signature is missing or malformed');
  const payer = eip3009.authorization.from;
  const { accepted } = payload;

  if (requirements.scheme !== 'exact' || accepted.scheme !== 'exact') {
    return fail('unsupported_scheme', `scheme must be "exact" (got "${accepted.scheme}")`, payer);
  }
  const chainId = chainIdOf(requirements.network);
  const served = chainId === undefined ? undefined : table[chainId];
  if (chainId === undefined || !served) return fail('unsupported_network', `network ${requirements.network} is not served`, payer);
  if (accepted.network !== requirements.network) {
    return fail('network_mismatch', `paid on ${accepted.network}, required ${requirements.network}`, payer);
  }
  const token = findTokenByAddress(chainId, requirements.asset, table);
  if (!token) return fail('asset_not_supported', `asset ${requirements.asset} is not served on ${requirements.network}`, payer);
  if (requirements.extra?.name !== token.eip712.name || requirements.extra?.version !== token.eip712.version) {
    return fail('token_domain_mismatch', `requirements announce a domain other than ${token.symbol}'s`, payer);
  }
  if (!sameAddress(accepted.asset, requirements.asset)) {
    return fail('asset_mismatch', `paid with ${accepted.asset}, required ${requirements.asset}`, payer);
  }
  if (!sameAddress(accepted.payTo, requirements.payTo) || !sameAddress(eip3009.authorization.to, requirements.payTo)) {
    return fail('pay_to_mismatch', `payment is to ${eip3009.authorization.to}, required ${requirements.payTo}`, payer);
  }
  if (accepted.amount !== requirements.amount || eip3009.authorization.value !== requirements.amount) {
    return fail('amount_mismatch', `authorized ${eip3009.authorization.value}, required ${requirements.amount}`, payer);
  }
  return {
    ok: true,
    checked: {
      payload,
      chainId,
      request: { network: requirements.network as CaipNetwork, asset: token.address, ...eip3009 },
    },
  };
}

function verifiedResult(checked: CheckedPayment): VerifyResult {
  return { ok: true, payer: checked.request.authorization.from, chainId: checked.chainId, ...checked.request };
}

function verifyFailure(response: VerifyResponse, payer: Address): Failure<VerifyFailureCode> {
  const code = codeForPackageReason(response.invalidReason, 'verification_failed');
  const known = (VERIFY_FAILURE_CODES as readonly string[]).includes(code);
  return fail(
    known ? (code as VerifyFailureCode) : 'verification_failed',
    [response.invalidReason, response.invalidMessage].filter(Boolean).join(': ') || 'payment is not valid',
    payer,
  );
}

function settleOutcome(response: SettleResponse, payer: Address, network: CaipNetwork): SettleResult {
  const txHash = /^0x[0-9a-fA-F]{64}$/.test(response.transaction) ? (response.transaction as Hex) : undefined;
  if (response.success && txHash) return { ok: true, payer, network, txHash };
  const failure = fail(
    codeForPackageReason(response.errorReason, 'settlement_failed'),
    [response.errorReason, response.errorMessage].filter(Boolean).join(': ') || 'settlement failed',
    payer,
  );
  return txHash ? { ...failure, txHash } : failure;
}

// ------------------------------------------------------------------ in-process facilitator

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

function facilitatorSigner(
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

// ------------------------------------------------------------------ external facilitator

export interface RemoteFacilitatorConfig {
  url: string;
  networks?: NetworkTable;
  timeoutMs?: number;
  createAuthHeaders?: FacilitatorConfig['createAuthHeaders'];
}

/** By name: @x402/core bundles a separate copy of these classes per entry point, so instanceof fails. */
function isNamedError<E extends Error>(err: unknown, name: string): err is E {
  return err instanceof Error && err.name === name;
}

/** An external x402 facilitator over HTTP (@x402/core's client), behind the same interface. */
export function createRemoteFacilitator(config: RemoteFacilitatorConfig): PaymentFacilitator {
  const table = config.networks ?? SUPPORTED_NETWORKS;
  const client = new HTTPFacilitatorClient({
    url: config.url,
    ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
    ...(config.createAuthHeaders ? { createAuthHeaders: config.createAuthHeaders } : {}),
  });

  async function verifyPayment(payload: unknown, requirements: PaymentRequirements): Promise<VerifyResult> {
    const checked = checkPaymentAgainstRequirements(payload, requirements, table);
    if (!checked.ok) return checked;
    const payer = checked.checked.request.authorization.from;
    let response: VerifyResponse;
    try {
      response = await client.verify(checked.checked.payload, requirements);
    } catch (err) {
      if (!isNamedError<VerifyError>(err, 'VerifyError')) throw err;
      response = { isValid: false, invalidReason: err.invalidReason, invalidMessage: err.invalidMessage };
    }
    if (!response.isValid) return verifyFailure(response, payer);
    return verifiedResult(checked.checked);
  }

  async function settlePayment(payload: unknown, requirements: PaymentRequirements): Promise<SettleResult> {
    const checked = checkPaymentAgainstRequirements(payload, requirements, table);
    if (!checked.ok) return checked;
    const { request } = checked.checked;
    let response: SettleResponse;
    try {
      response = await client.settle(checked.checked.payload, requirements);
    } catch (err) {
      if (!isNamedError<SettleError>(err, 'SettleError')) throw err;
      response = {
        success: false,
        errorReason: err.errorReason,
        errorMessage: err.errorMessage,
        transaction: err.transaction,
        network: err.network,
      };
    }
    return settleOutcome(response, request.authorization.from, request.network);
  }

  return { kind: 'remote', verifyPayment, settlePayment };
}

export type FacilitatorConfigChoice =
  | ({ kind: 'in_process' } & InProcessFacilitatorConfig)
  | ({ kind: 'remote' } & RemoteFacilitatorConfig);

export function createFacilitator(config: { kind: 'in_process' } & InProcessFacilitatorConfig): InProcessFacilitator;
export function createFacilitator(config: FacilitatorConfigChoice): PaymentFacilitator;
export function createFacilitator(config: FacilitatorConfigChoice): PaymentFacilitator {
  return config.kind === 'in_process' ? createInProcessFacilitator(config) : createRemoteFacilitator(config);
}
