import type { Models } from '../../shared/composition/models';
import { ConsoleSessionRepository } from '../../shared/console/index';
import type { LedgerStore } from '../../shared/credits/ledger-store';
import { pruneEmbedRecords } from '../../shared/embed/housekeeping';
import { pruneAuthRecords } from '../../shared/identity/housekeeping';
import { prunePaymentRecords } from '../../shared/payments/housekeeping';

export interface CreditExpiryDeps {
  models: Models;
  /** The process's ledger (the composition root's). */
  ledger: LedgerStore;
  sessionTtlSeconds: number;
}

export function createCreditExpiryActivities(deps: CreditExpiryDeps) {
  const { ledger } = deps;
  const consoleSessions = new ConsoleSessionRepository(deps.models);
  return {
    async findLapsedWallets(nowIso: string, limit: number): Promise<string[]> {
      return ledger.walletsWithLapsedGrants(new Date(nowIso), limit);
    },
    /** Idempotent: a retried call finds the expirations already written. */
    async expireWallet(wallet: string, nowIso: string): Promise<number> {
      return ledger.recordExpirations(wallet, new Date(nowIso));
    },
    /**
     * Every sign-in record past use: the API's sessions, request ids and rate-limit rows, the
     * widget's nonces and tokens, the x402 extensions' sign-in-with-x nonces and payment
     * identifiers, and the console's expired sessions. One activity under its recorded name, so
     * the sweep's history keeps its shape.
     */
    async pruneAuthRecords(nowIso: string) {
      const now = new Date(nowIso);
      const [auth, embed, payments, expiredConsoleSessions] = await Promise.all([
        pruneAuthRecords(deps.models, now, deps.sessionTtlSeconds),
        pruneEmbedRecords(deps.models, now),
        prunePaymentRecords(deps.models, now),
        consoleSessions.deleteExpired(now),
      ]);
      return { ...auth, ...embed, ...payments, consoleSessions: expiredConsoleSessions };
    },
  };
}

export type CreditExpiryActivities = ReturnType<typeof createCreditExpiryActivities>;
