import type { CreditType, Grant, NextExpiration, OpenHold } from './ledger';
import type { CreditTransactionDoc } from './models/credit-transaction';

/** What LedgerStore's operations answer (ledger-store.ts re-exports these). */

/** A transaction as clients see it (the spec's Credit transaction resource); `_id` is the op id. */
export type CreditTransaction = Omit<CreditTransactionDoc, 'live_grants' | 'grant' | 'seq' | 'op_id' | 'open_holds'>;

/** The entries clients see; `hold` and `release` are the ledger's own bookkeeping. */
export const PUBLIC_TRANSACTION_TYPES = ['grant', 'expiration', 'revocation', 'purchase'] as const;

/**
 * `fresh`: this call wrote the hold. Otherwise the hold id was taken before (the hold is the
 * claim of its request id): open or settled since, which `holdState` tells.
 */
export type HoldResult =
  | { ok: true; fresh: boolean; hold: { hold_id: string; credits: number; created_at: Date } }
  | { ok: false; balance: number };

/** Where a hold stands: never taken, open (with its owner attempt), or settled with the outcome written then. */
export type HoldState =
  | { state: 'none' }
  | { state: 'open'; hold: OpenHold }
  | {
      state: 'captured' | 'released';
      transactionId: string;
      credits: number;
      outcome?: string;
      /** The settling entry's details (the hold's: product, action, parameters digest, meta). */
      details?: string;
      /** When the settling entry was written: a receipt of it is issued at this time. */
      recordedAt: Date;
    };

/** A captured hold as a listing of them sees it (LedgerStore.purchases): its position pages the list. */
export interface PurchaseEntry {
  /** The purchase's transaction id (its op id), as the call's answer gave it. */
  transactionId: string;
  holdId: string;
  /** Its position in the account's ledger: a page of purchases ends before the last one's. */
  seq: number;
  /** The hold's details (product, action, parameters digest, meta). */
  details?: string;
  recordedAt: Date;
}

export interface BalanceView extends NextExpiration {
  balance: number;
}

export type SpendResult =
  { ok: true; transaction: CreditTransaction; replayed: boolean } | { ok: false; balance: number };

export interface GrantResult {
  grant: Grant;
  balance_after: number;
  replayed: boolean;
}

export interface GrantInput {
  wallet: string;
  /** Idempotency: the same id grants once (e.g. `x402:<payment id>`). Random when absent. */
  grantId?: string;
  credits: number;
  creditType: CreditType;
  sourceMetadata?: Record<string, unknown>;
  expiresAt?: Date | null;
  pooledAt?: Date | null;
  now?: Date;
}
