import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { JobRepository } from '../../shared/jobs/repository';
import { PLATFORM_ACCOUNT, rewardSpendRequestId } from '../../shared/jobs/rules';
import { signalFundsAdded, signalReview, verificationResult } from '../../temporal/job-verification/client';
import { jobActivities } from '../../workers/jobs-queue';
import { QUEUES } from '../../workers/queues';
import { type RunningWorkers, runWorkers } from '../../workers/run-workers';
import { TestAgent } from '../support/agent';
import { createJob, until } from '../support/jobs';
import { startTestStack, TestStack } from '../support/stack';

/**
 * The reward is paid exactly once whatever happens around it: workers killed mid-verification,
 * an underfunded platform account, a crash between the platform spend and the wallet grant,
 * and activity retries. Real dev server, real store, workers started and stopped by the test.
 */
describe('job rewards: exactly once under retries, a killed worker and an underfunded platform account', () => {
  let stack: TestStack;
  let ledger: LedgerStore;
  let repo: JobRepository;
  beforeAll(async () => {
    stack = await startTestStack();
    ledger = new LedgerStore(stack.db.models);
    repo = new JobRepository(stack.db.models);
  });
  afterAll(async () => {
    await stack.stop();
  });

  const startWorkers = (identity: string): Promise<RunningWorkers> =>
    runWorkers(
      { config: stack.config, db: stack.db, temporal: stack.temporal, identity },
      QUEUES.filter((q) => q.key === 'jobs'),
      stack.config.temporalAddress,
    );

  async function completeProofJob(reward: number) {
    const job = await createJob(stack.db.models, {
      kind: 'proof',
      target_url: null,
      platforms: [],
      review: 'manual',
      reward_credits: reward,
    });
    const agent = new TestAgent(stack.server.mainUrl);
    await agent.startSession();
    const r = await agent.call(`/api/external/jobs/${job._id}/reserve`, 'job_reserve', {}, job._id);
    expect(r.status).toBe(200);
    const c = await agent.call(
      `/api/external/jobs/${job._id}/complete`,
      'job_complete',
      { proof_text: 'see attached', reservation_id: r.body.data.reservation_id },
      job._id,
    );
    expect(c.status).toBe(200);
    return { job, agent, completionId: c.body.data.completion_id as string };
  }
  const rewardGrants = async (wallet: string) =>
    (await ledger.history(wallet, 50)).grants.filter((g) => g.credit_type === 'job_reward');
  const platformSpends = async (completionId: string) =>
    (await ledger.history(PLATFORM_ACCOUNT, 200)).transactions.filter(
      (t) => t.request_id === rewardSpendRequestId(completionId),
    );

  it('a worker stopped mid-verification, another started, the platform account empty then funded: one grant', async () => {
    const a = await startWorkers('worker-a');
    const { agent, completionId } = await completeProofJob(120);
    await until(
      () => repo.getCompletion(completionId),
      (c) => c?.status === 'awaiting_review',
    );
    await a.shutdown();

    // Approved while no worker runs; the platform account has nothing yet.
    await signalReview(stack.temporal, completionId, { outcome: 'approve', reason: 'ok' });
    const b = await startWorkers('worker-b');
    try {
      const unpaid = await until(
        () => repo.getCompletion(completionId),
        (c) => c?.payment.status === 'awaiting_funds',
      );
      expect(unpaid).toMatchObject({ status: 'approved', payment: { status: 'awaiting_funds', platform_balance: 0 } });
      const st = await agent.call(`/api/external/jobs/${unpaid!.job_id}/status`, 'job_status', {}, unpaid!.job_id);
      expect(st.body.data.completion).toMatchObject({ status: 'approved', payment: { status: 'awaiting_funds' } });
      expect(st.body.data.completion.verification.steps.at(-1)).toMatchObject({ name: 'payment', status: 'waiting' });

      await ledger.grant({ wallet: PLATFORM_ACCOUNT, grantId: 'fund-1', credits: 1000, creditType: 'admin_grant' });
      expect(await signalFundsAdded(stack.temporal, [completionId])).toBe(1);
      expect(await verificationResult(stack.temporal, completionId)).toEqual({
        outcome: 'approved',
        by: 'operator',
        paid: true,
      });
    } finally {
      await b.shutdown();
    }
    expect(await rewardGrants(agent.wallet)).toHaveLength(1);
    expect((await ledger.balance(agent.wallet)).balance).toBe(120);
    expect(await platformSpends(completionId)).toHaveLength(1);
    expect((await repo.getCompletion(completionId))!.payment).toMatchObject({ status: 'paid', attempts: 2 });
  });

  it('a worker process killed with SIGKILL mid-verification: another worker finishes it, one grant', async () => {
    await ledger.grant({ wallet: PLATFORM_ACCOUNT, grantId: 'fund-kill', credits: 1000, creditType: 'admin_grant' });
    const root = path.resolve(__dirname, '../..');
    // node itself with tsx's loader (not the tsx CLI, which runs the script in a grandchild a kill would miss).
    const child = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts', '--queues', 'jobs'], {
      cwd: root,
      env: process.env,
      stdio: 'ignore',
    });
    const exited = once(child, 'exit');
    let completionId: string;
    let wallet: string;
    try {
      const done = await completeProofJob(90);
      completionId = done.completionId;
      wallet = done.agent.wallet;
      // The worker process ran the checks and parked the verification on review; kill it hard.
      expect(
        (
          await until(
            () => repo.getCompletion(completionId),
            (c) => c?.status === 'awaiting_review',
            150_000,
          )
        )?.status,
      ).toBe('awaiting_review');
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    await signalReview(stack.temporal, completionId, { outcome: 'approve' });
    const b = await startWorkers('worker-after-kill');
    try {
      expect(await verificationResult(stack.temporal, completionId)).toEqual({
        outcome: 'approved',
        by: 'operator',
        paid: true,
      });
    } finally {
      await b.shutdown();
    }
    expect(await rewardGrants(wallet)).toHaveLength(1);
    expect((await ledger.balance(wallet)).balance).toBe(90);
    expect(await platformSpends(completionId)).toHaveLength(1);
  }, 240_000);

  it('a crash between the platform spend and the grant, and repeated activity runs, still pay once', async () => {
    await ledger.grant({ wallet: PLATFORM_ACCOUNT, grantId: 'fund-2', credits: 1000, creditType: 'admin_grant' });
    const w = await startWorkers('worker-c');
    try {
      const { agent, completionId } = await completeProofJob(70);
      await until(
        () => repo.getCompletion(completionId),
        (c) => c?.status === 'awaiting_review',
      );
      // An earlier attempt spent from the platform account and died before granting.
      const before = (await ledger.balance(PLATFORM_ACCOUNT)).balance;
      expect(
        (await ledger.spend({ wallet: PLATFORM_ACCOUNT, requestId: rewardSpendRequestId(completionId), credits: 70 }))
          .ok,
      ).toBe(true);

      await signalReview(stack.temporal, completionId, { outcome: 'approve' });
      expect(await verificationResult(stack.temporal, completionId)).toMatchObject({ paid: true });
      // Retries of the payment activity (as Temporal would run them) change nothing.
      const activities = jobActivities({ ...stack, identity: 'test' });
      await stack.db.models.jobCompletions.updateOne({ _id: completionId }, { $set: { 'payment.status': 'pending' } });
      await Promise.all([activities.payReward(completionId), activities.payReward(completionId)]);

      expect(await rewardGrants(agent.wallet)).toHaveLength(1);
      expect((await ledger.balance(agent.wallet)).balance).toBe(70);
      expect(await platformSpends(completionId)).toHaveLength(1);
      expect((await ledger.balance(PLATFORM_ACCOUNT)).balance).toBe(before - 70);
    } finally {
      await w.shutdown();
    }
  });
});
