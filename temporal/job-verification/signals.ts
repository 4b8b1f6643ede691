import { defineQuery, defineSignal } from '@temporalio/workflow';

export interface ReviewDecision {
  outcome: 'approve' | 'reject';
  reason?: string;
}

/** An operator's decision (job:approve / job:reject); honoured while the completion awaits review. */
export const reviewSignal = defineSignal<[ReviewDecision]>('jobReview');
/** The platform account was funded (job:fund): an approved-but-unpaid completion tries again now. */
export const fundsAddedSignal = defineSignal('jobFundsAdded');
/** Where the verification stands: checking, awaiting_review, paying, awaiting_funds, done. */
export const stageQuery = defineQuery<string>('jobVerificationStage');
