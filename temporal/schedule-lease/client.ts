import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import type { TemporalHandle } from '../connection';
import { SA } from '../search-attributes';
import { SCHEDULE_LEASE_QUEUE } from './config';
import { leaseWorkflowId } from './ids';
import { type LeaseInput, scheduleLeaseWorkflow } from './workflows';

/** A request must not hang on an unreachable Temporal: fail within this, and the caller answers 503. */
const DEADLINE_MS = 5000;

/**
 * Starts the lease workflow of one claim (a second start for the same claim finds the first).
 * Claims no longer start one (a lease runs out by the clock: docs/schedules.md#leases); the
 * workflow stays registered for leases started before, and this
 * stays for its tests.
 */
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

export function leaseHandle(temporal: TemporalHandle, claimId: string) {
  return temporal.client.workflow.getHandle<typeof scheduleLeaseWorkflow>(leaseWorkflowId(claimId));
}
