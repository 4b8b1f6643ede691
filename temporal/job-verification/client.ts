import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import type { JobEngine, VerificationStart } from '../../shared/jobs/engine';
import type { TemporalHandle } from '../connection';
import { ensureReservationSweep } from '../job-reservation/client';
import { SA } from '../search-attributes';
import { JOBS_QUEUE } from './config';
import { verificationWorkflowId } from './ids';
import { fundsAddedSignal, type ReviewDecision, reviewSignal, stageQuery } from './signals';
import { jobVerificationWorkflow } from './workflows';

const DEADLINE_MS = 5000;

/** Starts a completion's verification once (a second start finds the first). */
export async function startVerification(temporal: TemporalHandle, c: VerificationStart): Promise<void> {
  try {
    await temporal.client.withDeadline(Date.now() + DEADLINE_MS, () =>
      temporal.client.workflow.start(jobVerificationWorkflow, {
        taskQueue: temporal.queue(JOBS_QUEUE),
        workflowId: verificationWorkflowId(c.completionId),
        args: [{ completionId: c.completionId }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: [
          { key: SA.flowKind, value: 'job_verification' },
          { key: SA.wallet, value: c.wallet },
          { key: SA.jobId, value: c.jobId },
          { key: SA.flowStatus, value: 'checking' },
        ],
      }),
    );
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** An operator's approve or reject (job:approve / job:reject). */
export async function signalReview(
  temporal: TemporalHandle,
  completionId: string,
  decision: ReviewDecision,
): Promise<void> {
  await temporal.client.workflow.getHandle(verificationWorkflowId(completionId)).signal(reviewSignal, decision);
}

/** Tells verifications waiting for funds that the platform account was funded; closed ones are skipped. */
export async function signalFundsAdded(temporal: TemporalHandle, completionIds: string[]): Promise<number> {
  const sent = await Promise.allSettled(
    completionIds.map((id) => temporal.client.workflow.getHandle(verificationWorkflowId(id)).signal(fundsAddedSignal)),
  );
  return sent.filter((s) => s.status === 'fulfilled').length;
}

export async function verificationStage(temporal: TemporalHandle, completionId: string): Promise<string> {
  return temporal.client.workflow.getHandle(verificationWorkflowId(completionId)).query(stageQuery);
}

export async function verificationResult(temporal: TemporalHandle, completionId: string) {
  return temporal.client.workflow
    .getHandle<typeof jobVerificationWorkflow>(verificationWorkflowId(completionId))
    .result();
}

/** The job service's port onto this process's Temporal client (the reservation sweep and verifications). */
export function jobEngine(temporal: TemporalHandle): JobEngine {
  return {
    ensureReservationSweep: () => ensureReservationSweep(temporal),
    startVerification: (c) => startVerification(temporal, c),
  };
}
