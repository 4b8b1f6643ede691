import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import type { CallbackReplayStart } from '../../shared/webhook-runs/engine';
import type { TemporalHandle } from '../connection';
import { SA } from '../search-attributes';
import { CALLBACK_QUEUE } from './config';
import { type CallbackProgress, callbackProgressQuery } from './definitions';
import { callbackReplayWorkflowId, callbackWorkflowId } from './ids';
import { callbackReplayWorkflow } from './workflows';

/** A request must not hang on an unreachable Temporal: fail within this, and the caller answers 503. */
const START_DEADLINE_MS = 5000;

/** Where a run's callback delivery is (attempts, waits, status). */
export function callbackProgress(temporal: TemporalHandle, runId: string): Promise<CallbackProgress> {
  return temporal.client.workflow.getHandle(callbackWorkflowId(runId)).query(callbackProgressQuery);
}

/** Starts a replay's workflow once (id from the replay id); a second start of the same replay finds the first. */
export async function startCallbackReplay(temporal: TemporalHandle, r: CallbackReplayStart): Promise<void> {
  try {
    await temporal.client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      temporal.client.workflow.start(callbackReplayWorkflow, {
        taskQueue: temporal.queue(CALLBACK_QUEUE),
        workflowId: callbackReplayWorkflowId(r.replayId),
        args: [r],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: [
          { key: SA.flowKind, value: 'webhook_callback_replay' },
          { key: SA.agentGroupId, value: r.groupId },
        ],
      }),
    );
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** The replay's result once its one POST is done (tests; the group reads the delivery log). */
export function callbackReplayResult(temporal: TemporalHandle, replayId: string) {
  return temporal.client.workflow.getHandle<typeof callbackReplayWorkflow>(callbackReplayWorkflowId(replayId)).result();
}
