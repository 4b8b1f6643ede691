import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { RunCursor, RunHealActivities } from './activities';
import { RUN_HEAL_BATCH, RUN_HEAL_MAX_PAGES, RUN_HEAL_RETRY, RUN_HEAL_TIMEOUTS } from './config';

const acts = proxyActivities<RunHealActivities>({ ...RUN_HEAL_TIMEOUTS, retry: RUN_HEAL_RETRY });

export interface RunHealResult {
  found: number;
  started: number;
  existing: number;
  failed: number;
}

/**
 * Webhook runs a trigger inserted but never started (the API died, or its start failed
 * ambiguously, and the client never retried with its request_id): each still `queued` after
 * `staleSeconds` gets its workflow started, or fails when its graph is gone. Scheduled every
 * minute; reads in keyset pages, so runs that have an execution are passed over, not re-read.
 */
export async function webhookRunHealWorkflow(opts: { staleSeconds: number }): Promise<RunHealResult> {
  // The run's start, as recorded in history.
  const cutoff = new Date(workflowInfo().runStartTime.getTime() - opts.staleSeconds * 1000).toISOString();
  const result: RunHealResult = { found: 0, started: 0, existing: 0, failed: 0 };
  let after: RunCursor | null = null;
  for (let page = 0; page < RUN_HEAL_MAX_PAGES; page++) {
    const batch: RunCursor[] = await acts.findStaleQueuedRuns(cutoff, after, RUN_HEAL_BATCH);
    result.found += batch.length;
    for (const run of batch) {
      const outcome = await acts.healQueuedRun(run.id);
      if (outcome !== 'skipped') result[outcome] += 1;
    }
    if (batch.length < RUN_HEAL_BATCH) break;
    after = batch[batch.length - 1]!;
  }
  return result;
}
