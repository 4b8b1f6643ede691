import type { Models } from '../../shared/composition/models';
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
     * widget's nonces and tokens, and the x402 extensions' sign-in-with-x nonces and payment
     * identifiers. One activity under its recorded name, so the sweep's history keeps its shape.
     */
    async pruneAuthRecords(nowIso: string) {
      const now = new Date(nowIso);
      const [auth, embed, payments] = await Promise.all([
        pruneAuthRecords(deps.models, now, deps.sessionTtlSeconds),
        pruneEmbedRecords(deps.models, now),
        prunePaymentRecords(deps.models, now),
      ]);
      return { ...auth, ...embed, ...payments };
    },
  };
}

export type CreditExpiryActivities = ReturnType<typeof createCreditExpiryActivities>;
