import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/client';
import type { TemporalHandle } from '../connection';
import { SA } from '../search-attributes';
import { SCHEDULE_LEASE_QUEUE } from './config';
import { leaseWorkflowId } from './ids';
import { leaseEndedSignal } from './signals';
import { scheduleLeaseWorkflow, type LeaseInput } from './workflows';

/** A request must not hang on an unreachable Temporal: fail within this, and the caller answers 503. */
const DEADLINE_MS = 5000;

/** Starts the lease of one claim (a second start for the same claim finds the first). */
export async function startLease(temporal: TemporalHandle, input: LeaseInput): Promise<void> {
  try {
    await temporal.client.withDeadline(Date.now() + DEADLINE_MS, () =>
      temporal.client.workflow.start(scheduleLeaseWorkflow, {
        taskQueue: temporal.queue(SCHEDULE_LEASE_QUEUE),
        workflowId: leaseWorkflowId(input.claimId),
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: [
          { key: SA.flowKind, value: 'schedule_lease' },
          { key: SA.scheduleId, value: [input.scheduleId] },
          { key: SA.budgetId, value: [input.budgetId] },
          { key: SA.flowStatus, value: 'claimed' },
        ],
      }),
    );
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** Tells the lease its claim ended; a lease already gone (expired, finished) is fine. */
export async function signalLeaseEnded(temporal: TemporalHandle, claimId: string, kind: 'released' | 'advanced'): Promise<void> {
  try {
    await temporal.client.withDeadline(Date.now() + DEADLINE_MS, () =>
      temporal.client.workflow.getHandle(leaseWorkflowId(claimId)).signal(leaseEndedSignal, { kind }),
    );
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
}

export function leaseHandle(temporal: TemporalHandle, claimId: string) {
  return temporal.client.workflow.getHandle<typeof scheduleLeaseWorkflow>(leaseWorkflowId(claimId));
}
