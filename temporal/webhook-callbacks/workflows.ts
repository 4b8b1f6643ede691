import { proxyActivities, setHandler, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { ReplayInput, ReplayResult } from '../../shared/webhook-runs/callback-delivery';
import type { RetrySchedule } from '../../shared/webhook-runs/callback-schedule';
import { SA } from '../search-attributes';
import type { CallbackActivities } from './activities';
import { attemptOptions } from './config';
import { type CallbackProgress, callbackProgressQuery } from './definitions';

export interface CallbackInput {
  runId: string;
  groupId: string;
  schedule: RetrySchedule;
  timeoutMs: number;
}

/**
 * The delivery loop: attempt, and while the receiver asks for it (timeouts, 5xx, 429) wait the
 * scheduled time on a durable timer and attempt again, up to maxAttempts. Runs inside the run
 * workflow (its attempts on `queue`), so the first attempt is scheduled in the workflow task that
 * records the run's end; `progress` is updated in place for the callbackProgress query.
 */
export async function deliverCallback(
  input: CallbackInput,
  progress: CallbackProgress,
  queue?: string,
): Promise<CallbackProgress> {
  const { attemptDelivery } = proxyActivities<CallbackActivities>({
    ...attemptOptions(input.timeoutMs),
    ...(queue ? { taskQueue: queue } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const r = await attemptDelivery({
      runId: input.runId,
      groupId: input.groupId,
      attempt,
      schedule: input.schedule,
      timeoutMs: input.timeoutMs,
    });
    progress.attempts = attempt;
    if (r.outcome !== 'retry') {
      progress.status = r.outcome;
      return progress;
    }
    progress.waits.push(r.retryInMs);
    await sleep(r.retryInMs);
  }
}

/**
 * A finished run's callback as its own workflow (id `callback:<run id>`): what runs of the
 * first run workflow type (webhookRunWorkflow) start (ParentClosePolicy ABANDON). Kept for
 * those executions and their histories; new runs deliver from their own workflow.
 */
export async function callbackDeliveryWorkflow(input: CallbackInput): Promise<CallbackProgress> {
  const progress: CallbackProgress = { attempts: 0, waits: [], status: 'pending' };
  setHandler(callbackProgressQuery, () => progress);
  await deliverCallback(input, progress);
  upsertSearchAttributes([{ key: SA.flowStatus, value: progress.status }]);
  return progress;
}

/**
 * A replay a group asked for (id `callback-replay:<replay id>`): one POST of the run's final
 * callback body under its webhook-id, logged in the delivery log; it never writes the run. Its
 * activity retries only a lost worker or a store hiccup, never the receiver's answer.
 */
export async function callbackReplayWorkflow(input: ReplayInput): Promise<ReplayResult> {
  const { replayDelivery } = proxyActivities<CallbackActivities>(attemptOptions(input.timeoutMs));
  return replayDelivery(input);
}
