import { LedgerStore } from '../../shared/credits/ledger-store';
import type { JobCompletionDoc } from '../../shared/db/models/job-completion';
import { JobOperations } from '../../shared/jobs/operations';
import { JobRepository } from '../../shared/jobs/repository';
import { PLATFORM_ACCOUNT, type JobAction } from '../../shared/jobs/rules';
import { signalFundsAdded, signalReview } from '../../temporal/job-verification/client';
import { POSITIVE, type AdminCommand, type AdminContext, type Flags } from './command';

const JOB = /^job_[A-Za-z0-9]{8,40}$/;
const COMPLETION = /^cmp_[A-Za-z0-9]{8,40}$/;

const repo = (ctx: AdminContext) => new JobRepository(ctx.db.models);

function stateCommand(action: JobAction, summary: string): AdminCommand {
  return {
    name: `job:${action}`,
    usage: '--job JOB_ID',
    summary,
    run: (ctx, f) => new JobOperations(repo(ctx)).act(f.need('job', JOB), action),
  };
}

function completionSummary(c: JobCompletionDoc) {
  return { completion_id: c._id, job_id: c.job_id, wallet: c.wallet, status: c.status, payment: c.payment.status, review_deadline_at: c.review_deadline_at, created_at: c.created_at };
}

/** Sends an operator's decision, then waits briefly for the verification to record it. */
async function review(ctx: AdminContext, f: Flags, outcome: 'approve' | 'reject') {
  const id = f.need('completion', COMPLETION);
  const jobs = repo(ctx);
  const before = await jobs.getCompletion(id);
  if (!before) throw new Error(`no completion ${id}`);
  if (before.decision) throw new Error(`completion ${id} is already ${before.decision.outcome} (by ${before.decision.by})`);
  await signalReview(ctx.temporal(), id, { outcome, reason: f.optional('reason') ?? `${outcome}d by an operator` });
  const until = Date.now() + 10_000;
  let now = before;
  while (!now.decision && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 200));
    now = (await jobs.getCompletion(id)) ?? now;
  }
  return { ...completionSummary(now), decision: now.decision, signalled: true };
}

export const jobCommands: AdminCommand[] = [
  {
    name: 'job:create',
    usage:
      '--kind social_share|workflow_creation|proof --title T --reward N [--slots N] [--window-seconds S] [--per-wallet N] [--target-url URL] [--platforms x,linkedin] [--review auto|manual] [--review-deadline-seconds S] [--review-default approve|reject] [--description D] [--expires-at ISO] [--open]',
    summary: 'creates a job (draft unless --open)',
    run: (ctx, f) =>
      new JobOperations(repo(ctx)).create({
        kind: f.need('kind') as never,
        title: f.need('title'),
        description: f.optional('description'),
        reward_credits: Number(f.need('reward', POSITIVE)),
        slots: f.int('slots', { min: 1 }),
        reservation_window_seconds: f.int('window-seconds', { min: 1 }),
        max_completions_per_wallet: f.int('per-wallet', { min: 1 }),
        target_url: f.optional('target-url'),
        platforms: f.optional('platforms')?.split(',').map((p) => p.trim()).filter(Boolean),
        review: f.optional('review') as never,
        review_deadline_seconds: f.int('review-deadline-seconds', { min: 1 }),
        review_default: f.optional('review-default') as never,
        expires_at: f.optional('expires-at'),
        state: f.has('open') ? 'open' : 'draft',
      }),
  },
  {
    name: 'job:fund',
    usage: '--credits N [--id FUND_ID]',
    summary: `grants credits to the rewards account ${PLATFORM_ACCOUNT} (idempotent on --id), then retries approved completions waiting for funds`,
    run: async (ctx, f) => {
      const result = await new LedgerStore(ctx.db.models).grant({
        wallet: PLATFORM_ACCOUNT,
        grantId: f.optional('id'),
        credits: Number(f.need('credits', POSITIVE)),
        creditType: 'admin_grant',
        sourceMetadata: { granted_by: 'operator_cli', purpose: 'job_rewards' },
      });
      const waiting = await repo(ctx).listCompletions({ awaitingFunds: true }, 1000);
      const retried = waiting.length ? await signalFundsAdded(ctx.temporal(), waiting.map((c) => c._id)) : 0;
      return { account: PLATFORM_ACCOUNT, grant_id: result.grant._id, credits: result.grant.amount_credits, balance_after: result.balance_after, replayed: result.replayed, completions_retried: retried };
    },
  },
  stateCommand('open', 'publishes a draft job: wallets can list and reserve it'),
  stateCommand('pause', 'stops new reservations of an open job (active ones may still complete)'),
  stateCommand('resume', 'reopens a paused job'),
  stateCommand('close', 'closes a job for good (active reservations may still complete until they expire)'),
  {
    name: 'job:list',
    usage: '[--state draft|open|paused|closed] [--limit N]',
    summary: 'jobs with their taken slots, and the rewards account balance',
    run: async (ctx, f) => {
      const state = f.optional('state', /^(draft|open|paused|closed)$/) as never;
      const jobs = repo(ctx);
      const list = await jobs.listJobs({ state }, f.int('limit', { min: 1, max: 1000 }) ?? 100);
      const rows = await Promise.all(list.map(async (j) => ({ job_id: j._id, kind: j.kind, title: j.title, state: j.state, reward_credits: j.reward_credits, slots: j.slots, slots_taken: await jobs.takenSlotCount(j._id), review: j.review, target_url: j.target_url, expires_at: j.expires_at })));
      const { balance } = await new LedgerStore(ctx.db.models).balance(PLATFORM_ACCOUNT);
      return { platform_account: PLATFORM_ACCOUNT, platform_balance: balance, jobs: rows };
    },
  },
  {
    name: 'job:completions',
    usage: '[--job JOB_ID] [--status verifying|awaiting_review|approved|rejected|paid] [--awaiting-funds] [--limit N]',
    summary: 'completions, newest first (find the ones awaiting review)',
    run: async (ctx, f) => {
      const status = f.optional('status', /^(verifying|awaiting_review|approved|rejected|paid)$/) as never;
      const list = await repo(ctx).listCompletions({ jobId: f.optional('job', JOB), status, awaitingFunds: f.has('awaiting-funds') }, f.int('limit', { min: 1, max: 1000 }) ?? 100);
      return list.map(completionSummary);
    },
  },
  {
    name: 'job:approve',
    usage: '--completion CMP_ID [--reason TEXT]',
    summary: 'approves a completion awaiting review; the reward is paid by its verification workflow',
    run: (ctx, f) => review(ctx, f, 'approve'),
  },
  {
    name: 'job:reject',
    usage: '--completion CMP_ID [--reason TEXT]',
    summary: 'rejects a completion awaiting review; its slot returns to the pool',
    run: (ctx, f) => review(ctx, f, 'reject'),
  },
];

