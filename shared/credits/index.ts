// The face of the credits capability: everything other folders use of it. Code outside
// shared/credits/ imports this file, never the files behind it (house/capability-face).
export { probeLast } from './head-probe';
export { orderIdOf, settledHoldId } from './ledger-entries';
export { type HoldState, type LedgerEntry, LedgerStore } from './ledger-store';
export type { CreditsModels } from './models/index';
export { baseUnitsToUsd, creditsToBaseUnits, usdToBaseUnits } from './money';
export type { BalanceView, CreditTransaction, LedgerHistory, PurchaseEntry } from './types';
