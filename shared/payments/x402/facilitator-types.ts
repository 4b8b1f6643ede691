import type { PaymentRequirements } from '@x402/core/types';
import { type Address, type Hex } from 'viem';
import type { AuthorizationRef, AuthorizationUse, ChainReader, ReceiptResult } from './chain-reader';
import { type CaipNetwork } from './networks';

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
  'authorization_used_elsewhere',
  'authorization_expired_unsettled',
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
  /** `blockNumber`: the chain's block when it was verified; the authorization was unused then. */
  | ({
      ok: true;
      payer: Address;
      chainId: number;
      authorization: Eip3009Authorization;
      blockNumber?: string;
    } & SettlementRequest)
  | Failure<VerifyFailureCode>;

export type SettleResult =
  { ok: true; payer: Address; network: CaipNetwork; txHash: Hex } | (Failure<SettleFailureCode> & { txHash?: Hex });

export type SubmitResult = { ok: true; txHash: Hex } | Failure<SettleFailureCode>;

/** A simulated transferWithAuthorization, ready to sign once an account nonce is chosen. */
export interface PreparedSettlement {
  ok: true;
  chainId: number;
  /** The settlement account that will send it. */
  from: Address;
  /** viem's prepared request (gas, fees, type, chain id), without a nonce. In memory only. */
  tx: Record<string, unknown>;
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
  /** Read access to the settlement chains (authorization state, log search, receipts). */
  readonly chain: ChainReader;
  /** Simulates transferWithAuthorization; a revert is a value. Nothing is signed or sent. */
  prepareSettlement(request: SettlementRequest): Promise<PreparedSettlement | Failure<SettleFailureCode>>;
  /** Signs a prepared settlement with the given account nonce. */
  signSettlement(prepared: PreparedSettlement, nonce: number): Promise<{ raw: Hex; txHash: Hex }>;
  /** Simulates then broadcasts with the account's pending nonce (one-off use); a revert in simulation is a value. */
  submitSettlement(request: SettlementRequest): Promise<SubmitResult>;
  waitForReceipt(args: { network: CaipNetwork; txHash: Hex; timeoutMs?: number }): Promise<ReceiptResult>;
  /** True once the nonce was used (or canceled) on chain. */
  authorizationState(ref: AuthorizationRef): Promise<boolean>;
  /** The transaction that used or canceled the authorization, searching logs from `fromBlock`. */
  findAuthorizationUse(ref: AuthorizationRef & { fromBlock: bigint }): Promise<AuthorizationUse | undefined>;
}
