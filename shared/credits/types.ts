import type { LedgerStore } from './ledger-store';

// The ledger's answers as presenters see them, without importing the store.
export type { BalanceView, CreditTransaction, PurchaseEntry } from './ledger-results';

/** One page of a wallet's history, as LedgerStore.history answers it. */
export type LedgerHistory = Awaited<ReturnType<LedgerStore['history']>>;
