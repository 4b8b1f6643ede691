import { ApplicationFailure } from '@temporalio/activity';
import type { LedgerStore } from '../../shared/credits/ledger-store';
import type { JobCompletionDoc, VerificationStep } from '../../shared/jobs/models/job-completion';
import type { JobRepository } from '../../shared/jobs/repository';
import {
  afterChecks,
  type CheckResult,
  PLATFORM_ACCOUNT,
  rewardGrantId,
  rewardSpendRequestId,
  socialPostChecks,
} from '../../shared/jobs/rules';
import type { WorkflowCheck } from '../../shared/jobs/workflow-check';
import { DAY_MS } from '../../shared/platform/time';

export interface JobVerificationDeps {
  /** The process's ledger and job repository (the composition root's). */
  ledger: LedgerStore;
  jobs: JobRepository;
  creditExpiryDays: number;
  /** The workflow_creation check (shared/jobs/job-workflow-check.ts over the root's repositories). */
  checkWorkflow: WorkflowCheck;
}

export interface VerificationDecision {
  outcome: 'approved' | 'rejected';
  by: 'automated' | 'operator' | 'deadline_default';
  reason: string;
}

export interface ChecksOutcome {
  next: 'approve' | 'reject' | 'review';
  reason: string;
  reviewDeadlineMs: number;
  reviewDefault: 'approve' | 'reject';
}

export type PayOutcome = { status: 'paid'; grantId: string } | { status: 'awaiting_funds'; platformBalance: number };

/** The verification's store work. Each activity reads what is recorded and is safe to retry. */
function waitingReason(job: { kind: string; review: string }): string {
  return job.review === 'auto'
    ? `waiting for an operator: the service cannot verify ${job.kind} evidence itself`
    : 'waiting for an operator';
}

export function createJobVerificationActivities(deps: JobVerificationDeps) {
  const { jobs, ledger, checkWorkflow } = deps;

  async function load(completionId: string) {
    const completion = await jobs.getCompletion(completionId);
    if (!completion)
      throw ApplicationFailure.nonRetryable(`completion ${completionId} has no record`, 'completion_record_missing');
    const job = await jobs.getJob(completion.job_id);
    if (!job) throw ApplicationFailure.nonRetryable(`job ${completion.job_id} has no record`, 'job_record_missing');
    return { completion, job };
  }

  async function checksFor(
    c: JobCompletionDoc,
    job: NonNullable<Awaited<ReturnType<JobRepository['getJob']>>>,
  ): Promise<CheckResult[]> {
    const proof: CheckResult = {
      name: 'proof_text_present',
      status: c.proof_text.trim() ? 'passed' : 'failed',
      detail: `${c.proof_text.length} characters`,
    };
    switch (job.kind) {
      case 'social_share':
        return [proof, ...socialPostChecks(c.social_posts, job)];
      case 'workflow_creation':
        if (!c.workflow_id)
          return [
            proof,
            {
              name: 'workflow_id_present',
              status: 'failed',
              detail: 'a workflow_creation completion names its workflow_id',
            },
          ];
        return [
          proof,
          await checkWorkflow(c.workflow_id, { jobId: job._id, wallet: c.wallet, reservationId: c.reservation_id }),
        ];
      default:
        return [proof];
    }
  }

  return {
    async runChecks(completionId: string): Promise<ChecksOutcome> {
      const { completion, job } = await load(completionId);
      const now = new Date();
      const results = await checksFor(completion, job);
      const steps: VerificationStep[] = results.map((r) => ({ ...r, at: now }));
      await jobs.updateCompletion(completionId, { steps }, now);
      const next = afterChecks(
        steps.map((s) => s.status),
        job.review,
        job.kind,
      );
      const failed = steps.filter((s) => s.status === 'failed').map((s) => s.name);
      return {
        next,
        reason:
          next === 'reject'
            ? `failed checks: ${failed.join(', ')}`
            : next === 'approve'
              ? 'all automated checks passed'
              : waitingReason(job),
        reviewDeadlineMs: job.review_deadline_seconds * 1000,
        reviewDefault: job.review_default,
      };
    },

    async awaitReview(completionId: string, deadlineAt: string): Promise<void> {
      await jobs.updateCompletion(
        completionId,
        { status: 'awaiting_review', review_deadline_at: new Date(deadlineAt) },
        new Date(),
      );
    },

    /** Records the decision; a rejection returns the slot to the pool. */
    async decide(completionId: string, d: VerificationDecision): Promise<void> {
      const { completion, job } = await load(completionId);
      const now = new Date();
      if (completion.decision) return;
      if (d.outcome === 'rejected') {
        const reservation = await jobs.getReservation(completion.reservation_id);
        if (reservation?.slot !== null && reservation?.slot !== undefined)
          await jobs.freeSlot(job._id, reservation.slot, reservation._id);
      }
      await jobs.updateCompletion(
        completionId,
        {
          status: d.outcome,
          decision: { ...d, at: now },
          payment: { ...completion.payment, status: d.outcome === 'approved' ? 'pending' : 'not_due' },
        },
        now,
      );
    },

    /**
     * Pays the reward once: the platform account's spend is keyed by the completion, and so is
     * the wallet's grant; a retry after a crash between the two replays the spend and grants.
     */
    async payReward(completionId: string): Promise<PayOutcome> {
      const { completion, job } = await load(completionId);
      if (completion.payment.status === 'paid' && completion.payment.grant_id)
        return { status: 'paid', grantId: completion.payment.grant_id };
      const credits = completion.payment.credits;
      const attempts = completion.payment.attempts + 1;
      const spent = await ledger.spend({
        wallet: PLATFORM_ACCOUNT,
        requestId: rewardSpendRequestId(completionId),
        credits,
        details: `job reward ${job._id} → ${completion.wallet}`,
      });
      if (!spent.ok) {
        await jobs.updateCompletion(
          completionId,
          { payment: { ...completion.payment, status: 'awaiting_funds', platform_balance: spent.balance, attempts } },
          new Date(),
        );
        return { status: 'awaiting_funds', platformBalance: spent.balance };
      }
      const { grant } = await ledger.grant({
        wallet: completion.wallet,
        grantId: rewardGrantId(completionId),
        credits,
        creditType: 'job_reward',
        sourceMetadata: {
          job_id: job._id,
          completion_id: completionId,
          platform_transaction_id: spent.transaction._id,
        },
        expiresAt: new Date(Date.now() + deps.creditExpiryDays * DAY_MS),
      });
      const now = new Date();
      await jobs.updateCompletion(
        completionId,
        {
          status: 'paid',
          payment: {
            status: 'paid',
            credits,
            grant_id: grant._id,
            transaction_id: spent.transaction._id,
            paid_at: now,
            platform_balance: null,
            attempts,
          },
        },
        now,
      );
      return { status: 'paid', grantId: grant._id };
    },
  };
}

export type JobVerificationActivities = ReturnType<typeof createJobVerificationActivities>;
