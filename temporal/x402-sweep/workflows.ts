import { patched, proxyActivities } from '@temporalio/workflow';
import { workflowNow } from '../workflow-clock';
import type { SweepActivities } from './activities';
import { DEFAULT_STALE_SECONDS, SWEEP_BATCH, SWEEP_TIMEOUTS } from './config';

const acts = proxyActivities<SweepActivities>({
  ...SWEEP_TIMEOUTS,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});

export interface SettlementSweepResult {
  found: number;
  started: number;
  running: number;
  /** Payment ids whose settlement workflow closed while the record still says verified. */
  closed: string[];
  /** Paid calls left `delivering` past their bound, now recorded failed (never settled). */
  abandoned?: string[];
}

/** Sweeps started before this patch never looked at deliveries; their histories replay without it. */
const ABANDON_STALE_DELIVERIES = 'abandon-stale-deliveries';

/**
 * Payments verified but never settled (Temporal was unreachable when they came) get their
 * settlement started, so no purchase answers "settling" forever; paid calls left `delivering`
 * by a process that died mid-call are abandoned (never settled). Scheduled every minute.
 */
export async function x402SettlementSweepWorkflow(
  opts: { staleSeconds?: number } = {},
): Promise<SettlementSweepResult> {
  const now = new Date(workflowNow()).toISOString();
  const ids = await acts.findStalePayments(now, opts.staleSeconds ?? DEFAULT_STALE_SECONDS, SWEEP_BATCH);
  const result: SettlementSweepResult = { found: ids.length, started: 0, running: 0, closed: [] };
  for (const id of ids) {
    const action = await acts.startStaleSettlement(id);
    if (action === 'started') result.started++;
    else if (action === 'running') result.running++;
    else if (action === 'closed') result.closed.push(id);
  }
  if (patched(ABANDON_STALE_DELIVERIES)) {
    result.abandoned = [];
    for (const id of await acts.findStaleDeliveries(now, SWEEP_BATCH)) {
      if ((await acts.abandonStaleDelivery(id)) === 'abandoned') result.abandoned.push(id);
    }
  }
  return result;
}
