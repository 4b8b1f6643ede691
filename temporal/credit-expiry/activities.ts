import { LedgerStore } from '../../shared/credits/ledger-store';
import { pruneAuthRecords } from '../../shared/identity/housekeeping';
import type { Models } from '../../shared/platform/db/index';

export interface CreditExpiryDeps {
  models: Models;
  /** The process's ledger (workers/deps.ts); built here when absent. */
  ledger?: LedgerStore;
  sessionTtlSeconds: number;
}

export function createCreditExpiryActivities(deps: CreditExpiryDeps) {
  const ledger = deps.ledger ?? new LedgerStore(deps.models);
  return {
    async findLapsedWallets(nowIso: string, limit: number): Promise<string[]> {
      return ledger.walletsWithLapsedGrants(new Date(nowIso), limit);
    },
    /** Idempotent: a retried call finds the expirations already written. */
    async expireWallet(wallet: string, nowIso: string): Promise<number> {
      return ledger.recordExpirations(wallet, new Date(nowIso));
    },
    async pruneAuthRecords(nowIso: string) {
      return pruneAuthRecords(deps.models, new Date(nowIso), deps.sessionTtlSeconds);
    },
  };
}

export type CreditExpiryActivities = ReturnType<typeof createCreditExpiryActivities>;
