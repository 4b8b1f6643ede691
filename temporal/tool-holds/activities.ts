import type { LedgerStore } from '../../shared/credits/ledger-store';
import { healHold, type HealOutcome } from '../../shared/tools/holds';

/** The process's own domain objects (workers/deps.ts builds them once). */
export interface ToolHoldsDeps {
  ledger: LedgerStore;
}

export function createToolHoldsActivities({ ledger }: ToolHoldsDeps) {
  return {
    /** Open holds taken before the cut-off, from the ledger past the healer's watermark (LedgerStore.staleHolds). */
    async findStaleHolds(olderThanIso: string, limit: number): Promise<Array<{ account: string; holdId: string }>> {
      const rows = await ledger.staleHolds(new Date(olderThanIso), limit);
      return rows.map((r) => ({ account: r.account, holdId: r.holdId }));
    },
    /** Releases the hold, recording its call failed in the same entry; idempotent (keyed by the hold). */
    async healHold(account: string, holdId: string): Promise<HealOutcome> {
      return healHold(ledger, account, holdId);
    },
  };
}

export type ToolHoldsActivities = ReturnType<typeof createToolHoldsActivities>;
