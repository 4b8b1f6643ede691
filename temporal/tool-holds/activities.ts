import { LedgerStore } from '../../shared/credits/ledger-store';
import type { Models } from '../../shared/db';
import { healHold, type HealOutcome } from '../../shared/tools/holds';
import { ToolRepository } from '../../shared/tools/repository';

export interface ToolHoldsDeps {
  models: Models;
}

export function createToolHoldsActivities(deps: ToolHoldsDeps) {
  const ledger = new LedgerStore(deps.models);
  const repo = new ToolRepository(deps.models);
  return {
    async findStaleHolds(olderThanIso: string, limit: number): Promise<Array<{ account: string; holdId: string }>> {
      const rows = await ledger.staleHolds(new Date(olderThanIso), limit);
      return rows.map((r) => ({ account: r.account, holdId: r.holdId }));
    },
    /** Idempotent: capture and release are both keyed by the hold. */
    async healHold(account: string, holdId: string): Promise<HealOutcome> {
      return healHold(ledger, repo, account, holdId);
    },
  };
}

export type ToolHoldsActivities = ReturnType<typeof createToolHoldsActivities>;
