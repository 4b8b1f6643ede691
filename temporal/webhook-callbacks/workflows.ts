import { proxyActivities, setHandler, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { RetrySchedule } from '../../shared/callbacks/schedule';
import { SA } from '../search-attributes';
import type { CallbackActivities } from './activities';
import { attemptOptions } from './config';
import { callbackProgressQuery, type CallbackProgress } from './definitions';

export interface CallbackInput {
  runId: string;
  groupId: string;
  schedule: RetrySchedule;
  timeoutMs: number;
}

/**
 * Delivers a finished run's callback: attempt, and while the receiver asks for it (timeouts,
 * 5xx, 429) wait the scheduled time on a durable timer and attempt again, up to maxAttempts.
 * Started by the run workflow (ParentClosePolicy ABANDON), id `callback:<run id>`.
 */
export async function callbackDeliveryWorkflow(input: CallbackInput): Promise<CallbackProgress> {
  const { attemptDelivery } = proxyActivities<CallbackActivities>(attemptOptions(input.timeoutMs));
  const progress: CallbackProgress = { attempts: 0, waits: [], status: 'pending' };
  setHandler(callbackProgressQuery, () => progress);
  for (let attempt = 1; ; attempt++) {
    const r = await attemptDelivery({ runId: input.runId, groupId: input.groupId, attempt, schedule: input.schedule, timeoutMs: input.timeoutMs });
    progress.attempts = attempt;
    if (r.outcome !== 'retry') {
      progress.status = r.outcome;
      upsertSearchAttributes([{ key: SA.flowStatus, value: r.outcome }]);
      return progress;
    }
    progress.waits.push(r.retryInMs);
    await sleep(r.retryInMs);
  }
}
