import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { EmbedPruneCounts } from '../../shared/embed/housekeeping';
import type { PaymentPruneCounts } from '../../shared/payments/housekeeping';
import type { CreditExpiryActivities } from './activities';
import { EXPIRY_BATCH, EXPIRY_TIMEOUTS } from './config';

const acts = proxyActivities<CreditExpiryActivities>({
  ...EXPIRY_TIMEOUTS,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});

export interface ExpirySweepResult {
  wallets: number;
  expirations: number;
  /** What housekeeping deleted; sweeps recorded before the widget's (or the payments', or the console's) rows were pruned lack those counts. */
  pruned: { sessions: number; requestIds: number; rateLimits: number } & Partial<EmbedPruneCounts> &
    Partial<PaymentPruneCounts> & { consoleSessions?: number };
}

/**
 * Writes `expiration` transactions for every grant that lapsed by the sweep's start. Balances
 * never count a lapsed grant anyway; this makes history show it and keeps the live sets small.
 */
export async function creditExpirySweepWorkflow(): Promise<ExpirySweepResult> {
  const now = workflowInfo().runStartTime.toISOString(); // the sweep's start, as recorded in history
  let wallets = 0;
  let expirations = 0;
  for (;;) {
    const batch = await acts.findLapsedWallets(now, EXPIRY_BATCH);
    if (batch.length === 0) break;
    const counts = await Promise.all(batch.map((w) => acts.expireWallet(w, now)));
    wallets += batch.length;
    expirations += counts.reduce((a, b) => a + b, 0);
    if (batch.length < EXPIRY_BATCH) break;
  }
  const pruned = await acts.pruneAuthRecords(now);
  return { wallets, expirations, pruned };
}
