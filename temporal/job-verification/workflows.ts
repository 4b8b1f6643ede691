import { condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { workflowNow } from '../workflow-clock';
import type { JobVerificationActivities, VerificationDecision } from './activities';
import { JOB_ACTIVITY_OPTIONS, PAYMENT_RETRY_INTERVAL_MS } from './config';
import { fundsAddedSignal, type ReviewDecision, reviewSignal, stageQuery } from './signals';

const { runChecks, awaitReview, decide, payReward } = proxyActivities<JobVerificationActivities>(JOB_ACTIVITY_OPTIONS);

export interface VerificationResult {
  outcome: 'approved' | 'rejected';
  by: VerificationDecision['by'];
  paid: boolean;
}

/**
 * Verifies one completion (workflow id = completion id): automated checks, then pay, reject, or
 * wait for an operator until the job's review deadline (then the job's review_default). An
 * approved completion is paid exactly once; when the platform account is short it waits for
 * job:fund (a signal) or retries on a timer.
 */
export async function jobVerificationWorkflow(input: { completionId: string }): Promise<VerificationResult> {
  let stage = 'checking';
  let review: ReviewDecision | undefined;
  let funded = 0;
  setHandler(reviewSignal, (d) => {
    review ??= d;
  });
  setHandler(fundsAddedSignal, () => {
    funded += 1;
  });
  setHandler(stageQuery, () => stage);
  const setStage = (s: string) => {
    stage = s;
    upsertSearchAttributes({ FlowStatus: [s] });
  };
  setStage('checking');

  const checks = await runChecks(input.completionId);
  let decision: VerificationDecision;
  if (checks.next === 'review') {
    setStage('awaiting_review');
    await awaitReview(input.completionId, new Date(workflowNow() + checks.reviewDeadlineMs).toISOString());
    if (await condition(() => review !== undefined, checks.reviewDeadlineMs)) {
      decision = {
        outcome: review!.outcome === 'approve' ? 'approved' : 'rejected',
        by: 'operator',
        reason: review!.reason ?? '',
      };
    } else {
      decision = {
        outcome: checks.reviewDefault === 'approve' ? 'approved' : 'rejected',
        by: 'deadline_default',
        reason: 'no operator decision before the review deadline',
      };
    }
  } else {
    decision = { outcome: checks.next === 'approve' ? 'approved' : 'rejected', by: 'automated', reason: checks.reason };
  }
  await decide(input.completionId, decision);
  if (decision.outcome === 'rejected') {
    setStage('rejected');
    return { outcome: 'rejected', by: decision.by, paid: false };
  }

  setStage('paying');
  for (;;) {
    const paid = await payReward(input.completionId);
    if (paid.status === 'paid') break;
    setStage('awaiting_funds');
    const seen = funded;
    await condition(() => funded > seen, PAYMENT_RETRY_INTERVAL_MS);
    setStage('paying');
  }
  setStage('paid');
  return { outcome: 'approved', by: decision.by, paid: true };
}
