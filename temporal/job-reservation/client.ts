import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import type { TemporalHandle } from '../connection';
import { SA } from '../search-attributes';
import { JOBS_QUEUE } from './config';
import { reservationWorkflowId } from './ids';
import { reservationEndedSignal } from './signals';
import { jobReservationWorkflow } from './workflows';

const START_DEADLINE_MS = 5000;

/** Starts the reservation's expiry timer once (a second start finds the first). */
export async function startReservationTimer(temporal: TemporalHandle, r: { reservationId: string; jobId: string; wallet: string; windowMs: number }): Promise<void> {
  try {
    await temporal.client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      temporal.client.workflow.start(jobReservationWorkflow, {
        taskQueue: temporal.queue(JOBS_QUEUE),
        workflowId: reservationWorkflowId(r.reservationId),
        args: [{ reservationId: r.reservationId, windowMs: r.windowMs }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: [
          { key: SA.flowKind, value: 'job_reservation' },
          { key: SA.wallet, value: r.wallet },
          { key: SA.jobId, value: r.jobId },
          { key: SA.flowStatus, value: 'active' },
        ],
      }),
    );
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** Stops the timer of a completed reservation. Best effort: the store's outcome row already decided. */
export async function signalReservationEnded(temporal: TemporalHandle, reservationId: string): Promise<void> {
  await temporal.client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
    temporal.client.workflow.getHandle(reservationWorkflowId(reservationId)).signal(reservationEndedSignal),
  );
}
