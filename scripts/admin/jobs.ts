import type { JobCompletionDoc } from '../../shared/jobs/models/job-completion';
import { JobOperations } from '../../shared/jobs/operations';
import { type JobAction, PLATFORM_ACCOUNT } from '../../shared/jobs/rules';
import { signalFundsAdded, signalReview } from '../../temporal/job-verification/client';
import { type AdminCommand, type AdminContext, type Flags, type FlagSpec, POSITIVE } from './command';

const JOB = /^job_[A-Za-z0-9]{8,40}$/;
const COMPLETION = /^cmp_[A-Za-z0-9]{8,40}$/;

const repo = (ctx: AdminContext) => ctx.root.repos.jobs;

function stateCommand(action: JobAction, summary: string): AdminCommand {
  return {
    name: `job:${action}`,
    summary,
    flags: [{ name: 'job', arg: 'JOB_ID', required: true, pattern: JOB, description: 'the job' }],
    run: (ctx, f) => new JobOperations(repo(ctx)).act(f.need('job'), action),
  };
}

const COMPLETION_COLUMNS = [
  'completion_id',
  'job_id',
  'wallet',
  'status',
  'payment',
  'review_deadline_at',
  'created_at',
];

const REVIEW_FLAGS: FlagSpec[] = [
  {
    name: 'completion',
    arg: 'CMP_ID',
    required: true,
    pattern: COMPLETION,
    description: 'the completion (job:completions --status awaiting_review lists them)',
  },
  { name: 'reason', arg: 'TEXT', description: 'recorded with the decision' },
];

function completionSummary(c: JobCompletionDoc) {
  return {
    completion_id: c._id,
    job_id: c.job_id,
    wallet: c.wallet,
    status: c.status,
    payment: c.payment.status,
    review_deadline_at: c.review_deadline_at,
    created_at: c.created_at,
  };
}

/** Sends an operator's decision, then waits briefly for the verification to record it. */
async function review(ctx: AdminContext, f: Flags, outcome: 'approve' | 'reject') {
  const id = f.need('completion');
  const jobs = repo(ctx);
  const before = await jobs.getCompletion(id);
  if (!before) throw new Error(`no completion ${id}`);
  if (before.decision)
    throw new Error(`completion ${id} is already ${before.decision.outcome} (by ${before.decision.by})`);
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
    summary: 'creates a job (draft unless --open)',
    flags: [
      {
        name: 'kind',
        arg: 'social_share|workflow_creation|proof',
        required: true,
        pattern: /^(social_share|workflow_creation|proof)$/,
        description: 'what a wallet does to complete it',
      },
      { name: 'title', arg: 'TEXT', required: true, description: 'shown to wallets' },
      {
        name: 'reward',
        arg: 'N',
        required: true,
        pattern: POSITIVE,
        description: 'credits paid per approved completion',
      },
      { name: 'slots', arg: 'N', int: { min: 1 }, description: 'how many completions it pays for' },
      { name: 'window-seconds', arg: 'S', int: { min: 1 }, description: 'how long a reservation holds a slot' },
      { name: 'per-wallet', arg: 'N', int: { min: 1 }, description: 'completions allowed per wallet' },
      { name: 'target-url', arg: 'URL', description: 'what to share (social_share needs it)' },
      { name: 'platforms', arg: 'x,linkedin', description: 'where a share counts, comma-separated' },
      { name: 'review', arg: 'auto|manual', pattern: /^(auto|manual)$/, description: 'who decides on a completion' },
      { name: 'review-deadline-seconds', arg: 'S', int: { min: 1 }, description: 'how long a manual review may take' },
      {
        name: 'review-default',
        arg: 'approve|reject',
        pattern: /^(approve|reject)$/,
        description: 'the decision when the review deadline passes',
      },
      { name: 'description', arg: 'TEXT', description: 'longer text shown to wallets' },
      { name: 'expires-at', arg: 'ISO', description: 'when it closes by itself' },
      { name: 'open', description: 'publish it at once (default: a draft)' },
    ],
    run: (ctx, f) =>
      new JobOperations(repo(ctx)).create({
        kind: f.need('kind') as never,
        title: f.need('title'),
        description: f.optional('description'),
        reward_credits: Number(f.need('reward')),
        slots: f.int('slots'),
        reservation_window_seconds: f.int('window-seconds'),
        max_completions_per_wallet: f.int('per-wallet'),
        target_url: f.optional('target-url'),
        platforms: f
          .optional('platforms')
          ?.split(',')
          .map((p) => p.trim())
          .filter(Boolean),
        review: f.optional('review') as never,
        review_deadline_seconds: f.int('review-deadline-seconds'),
        review_default: f.optional('review-default') as never,
        expires_at: f.optional('expires-at'),
        state: f.has('open') ? 'open' : 'draft',
      }),
  },
  {
    name: 'job:fund',
    summary: `grants credits to the rewards account ${PLATFORM_ACCOUNT} (idempotent on --id), then retries approved completions waiting for funds`,
    flags: [
      {
        name: 'credits',
        arg: 'N',
        required: true,
        pattern: POSITIVE,
        description: 'credits to add to the rewards account',
      },
      { name: 'id', arg: 'FUND_ID', description: 'the grant id; funding the same id again changes nothing' },
    ],
    run: async (ctx, f) => {
      const result = await ctx.root.repos.ledger.grant({
        wallet: PLATFORM_ACCOUNT,
        grantId: f.optional('id'),
        credits: Number(f.need('credits')),
        creditType: 'admin_grant',
        sourceMetadata: { granted_by: 'operator_cli', purpose: 'job_rewards' },
      });
      const waiting = await repo(ctx).listCompletions({ awaitingFunds: true }, 1000);
      const retried = waiting.length
        ? await signalFundsAdded(
            ctx.temporal(),
            waiting.map((c) => c._id),
          )
        : 0;
      return {
        account: PLATFORM_ACCOUNT,
        grant_id: result.grant._id,
        credits: result.grant.amount_credits,
        balance_after: result.balance_after,
        replayed: result.replayed,
        completions_retried: retried,
      };
    },
  },
  stateCommand('open', 'publishes a draft job: wallets can list and reserve it'),
  stateCommand('pause', 'stops new reservations of an open job (active ones may still complete)'),
  stateCommand('resume', 'reopens a paused job'),
  stateCommand('close', 'closes a job for good (active reservations may still complete until they expire)'),
  {
    name: 'job:list',
    summary: 'jobs with their taken slots, and the rewards account balance',
    flags: [
      {
        name: 'state',
        arg: 'draft|open|paused|closed',
        pattern: /^(draft|open|paused|closed)$/,
        description: 'only jobs in this state',
      },
      { name: 'limit', arg: 'N', int: { min: 1, max: 1000 }, description: 'at most this many jobs (default 100)' },
    ],
    view: {
      tables: {
        jobs: [
          'job_id',
          'kind',
          { key: 'title', max: 32 },
          'state',
          { key: 'reward_credits', header: 'REWARD' },
          'slots',
          { key: 'slots_taken', header: 'TAKEN' },
          'review',
          'expires_at',
        ],
      },
    },
    run: async (ctx, f) => {
      const state = f.optional('state') as never;
      const jobs = repo(ctx);
      const list = await jobs.listJobs({ state }, f.int('limit') ?? 100);
      const rows = await Promise.all(
        list.map(async (j) => ({
          job_id: j._id,
          kind: j.kind,
          title: j.title,
          state: j.state,
          reward_credits: j.reward_credits,
          slots: j.slots,
          slots_taken: await jobs.takenSlotCount(j._id),
          review: j.review,
          target_url: j.target_url,
          expires_at: j.expires_at,
        })),
      );
      const { balance } = await ctx.root.repos.ledger.balance(PLATFORM_ACCOUNT);
      return { platform_account: PLATFORM_ACCOUNT, platform_balance: balance, jobs: rows };
    },
  },
  {
    name: 'job:completions',
    summary: 'completions, newest first (find the ones awaiting review)',
    flags: [
      { name: 'job', arg: 'JOB_ID', pattern: JOB, description: "only this job's completions" },
      {
        name: 'status',
        arg: 'verifying|awaiting_review|approved|rejected|paid',
        pattern: /^(verifying|awaiting_review|approved|rejected|paid)$/,
        description: 'only completions in this status',
      },
      { name: 'awaiting-funds', description: 'only approved completions waiting for the rewards account to be funded' },
      { name: 'limit', arg: 'N', int: { min: 1, max: 1000 }, description: 'at most this many (default 100)' },
    ],
    view: { columns: COMPLETION_COLUMNS },
    run: async (ctx, f) => {
      const status = f.optional('status') as never;
      const list = await repo(ctx).listCompletions(
        { jobId: f.optional('job'), status, awaitingFunds: f.has('awaiting-funds') },
        f.int('limit') ?? 100,
      );
      return list.map(completionSummary);
    },
  },
  {
    name: 'job:approve',
    summary: 'approves a completion awaiting review; the reward is paid by its verification workflow',
    flags: REVIEW_FLAGS,
    run: (ctx, f) => review(ctx, f, 'approve'),
  },
  {
    name: 'job:reject',
    summary: 'rejects a completion awaiting review; its slot returns to the pool',
    flags: REVIEW_FLAGS,
    run: (ctx, f) => review(ctx, f, 'reject'),
  },
];
