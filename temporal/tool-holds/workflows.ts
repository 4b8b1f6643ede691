import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ToolHoldsActivities } from './activities';
import { HOLD_HEAL_BATCH, HOLD_HEAL_RETRY, HOLD_HEAL_TIMEOUTS } from './config';

const acts = proxyActivities<ToolHoldsActivities>({ ...HOLD_HEAL_TIMEOUTS, retry: HOLD_HEAL_RETRY });

export interface HoldHealResult {
  captured: number;
  released: number;
  gone: number;
}

/**
 * Settles holds a crashed API or worker left open: older than `olderThanMinutes`, each is
 * captured when its call is recorded as succeeded and released otherwise (unknown or failed
 * costs the caller nothing). Run by a schedule every minute, and on demand.
 */
export async function toolHoldHealWorkflow(olderThanMinutes: number): Promise<HoldHealResult> {
  const cutoff = new Date(workflowInfo().runStartTime.getTime() - olderThanMinutes * 60_000).toISOString(); // the run's start, as recorded in history
  const result: HoldHealResult = { captured: 0, released: 0, gone: 0 };
  const seen = new Set<string>();
  for (;;) {
    const batch = (await acts.findStaleHolds(cutoff, HOLD_HEAL_BATCH)).filter(
      (h) => !seen.has(`${h.account}|${h.holdId}`),
    );
    if (batch.length === 0) break;
    const outcomes = await Promise.all(batch.map((h) => acts.healHold(h.account, h.holdId)));
    for (const [i, o] of outcomes.entries()) {
      result[o] += 1;
      seen.add(`${batch[i]!.account}|${batch[i]!.holdId}`);
    }
    if (batch.length < HOLD_HEAL_BATCH) break;
  }
  return result;
}
