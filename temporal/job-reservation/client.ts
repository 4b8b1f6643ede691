import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { TemporalHandle } from '../connection';
import { SA } from '../search-attributes';
import { JOBS_QUEUE, SWEEP_RECHECK_MS } from './config';
import { reservationSweepWorkflowId } from './ids';
import { jobReservationSweepWorkflow } from './workflows';

const START_DEADLINE_MS = 5000;

/** Starts the deployment's expiry sweep unless it runs (a second start finds the first). */
export async function startReservationSweep(
  temporal: TemporalHandle,
  input: { tickMs?: number; rounds?: number } = {},
): Promise<void> {
  try {
    await temporal.client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      temporal.client.workflow.start(jobReservationSweepWorkflow, {
        taskQueue: temporal.queue(JOBS_QUEUE),
        workflowId: reservationSweepWorkflowId(temporal.prefix),
        args: [input],
        typedSearchAttributes: [{ key: SA.flowKind, value: 'job_reservation_sweep' }],
      }),
    );
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

const checkedAt = new WeakMap<TemporalHandle, number>();

/**
 * Makes sure the sweep runs before a reservation relies on it: a Temporal call on a process's
 * first reserve and then every few minutes, not one per reservation. Throws when Temporal
 * cannot be reached then (the reserve answers 503 and gives its slot back).
 */
export async function ensureReservationSweep(temporal: TemporalHandle, now = Date.now()): Promise<void> {
  const last = checkedAt.get(temporal);
  if (last !== undefined && now - last < SWEEP_RECHECK_MS) return;
  await startReservationSweep(temporal);
  checkedAt.set(temporal, now);
}
