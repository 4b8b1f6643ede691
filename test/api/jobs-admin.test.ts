import { LedgerStore } from '../../shared/credits/ledger-store';
import { JobRepository } from '../../shared/jobs/repository';
import { PLATFORM_ACCOUNT } from '../../shared/jobs/rules';
import { adminJson } from '../support/admin-cli';
import { TestAgent } from '../support/agent';
import { until } from '../support/jobs';
import { startTestStack, TestStack } from '../support/stack';

// Each command is a fresh process (a second or more on a loaded machine): generous per-test limits.

describe('job operator commands through the real CLI', () => {
  let stack: TestStack;
  let repo: JobRepository;
  let ledger: LedgerStore;
  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    repo = new JobRepository(stack.db.models);
    ledger = new LedgerStore(stack.db.models);
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function reserveAndComplete(jobId: string) {
    const agent = new TestAgent(stack.server.mainUrl);
    await agent.startSession();
    const r = await agent.call(`/api/external/jobs/${jobId}/reserve`, 'job_reserve', {}, jobId);
    expect(r.status).toBe(200);
    const c = await agent.call(`/api/external/jobs/${jobId}/complete`, 'job_complete', { proof_text: 'proof' }, jobId);
    expect(c.status).toBe(200);
    await until(
      () => repo.getCompletion(c.body.data.completion_id),
      (x) => x?.status === 'awaiting_review',
    );
    return { agent, completionId: c.body.data.completion_id as string };
  }

  it('creates, opens, pauses, resumes and lists jobs; refuses a transition the state does not allow', async () => {
    const job = await adminJson(
      'job:create',
      '--kind',
      'social_share',
      '--title',
      'Share it',
      '--reward',
      '30',
      '--slots',
      '4',
      '--target-url',
      'https://example.com/p',
      '--platforms',
      'x,linkedin',
    );
    expect(job).toMatchObject({
      kind: 'social_share',
      state: 'draft',
      reward_credits: 30,
      slots: 4,
      review: 'manual',
      review_default: 'reject',
      platforms: ['x', 'linkedin'],
    });
    expect(await adminJson('job:open', '--job', job._id)).toMatchObject({ state: 'open' });
    expect(await adminJson('job:pause', '--job', job._id)).toMatchObject({ state: 'paused' });
    await expect(adminJson('job:pause', '--job', job._id)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('it is paused'),
    });
    expect(await adminJson('job:resume', '--job', job._id)).toMatchObject({ state: 'open' });
    const list = await adminJson('job:list', '--state', 'open');
    expect(list.platform_account).toBe(PLATFORM_ACCOUNT);
    expect(list.jobs).toContainEqual(expect.objectContaining({ job_id: job._id, slots: 4, slots_taken: 0 }));
    await expect(
      adminJson('job:create', '--kind', 'social_share', '--title', 'no target', '--reward', '5'),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('target_url') });
  }, 240_000);

  it('funds the platform account, approves and rejects completions awaiting review', async () => {
    const funded = await adminJson('job:fund', '--credits', '500', '--id', 'cli-fund-1');
    expect(funded).toMatchObject({ account: PLATFORM_ACCOUNT, credits: 500, balance_after: 500, replayed: false });
    expect(await adminJson('job:fund', '--credits', '500', '--id', 'cli-fund-1')).toMatchObject({ replayed: true });

    const job = await adminJson(
      'job:create',
      '--kind',
      'proof',
      '--title',
      'Write a review',
      '--reward',
      '25',
      '--open',
    );
    expect(job.review).toBe('manual');
    const one = await reserveAndComplete(job._id);
    const two = await reserveAndComplete(job._id);
    const waiting = await adminJson('job:completions', '--job', job._id, '--status', 'awaiting_review');
    expect(waiting.map((c: { completion_id: string }) => c.completion_id).sort()).toEqual(
      [one.completionId, two.completionId].sort(),
    );

    expect(await adminJson('job:approve', '--completion', one.completionId, '--reason', 'good')).toMatchObject({
      decision: { outcome: 'approved', by: 'operator', reason: 'good' },
    });
    expect(await adminJson('job:reject', '--completion', two.completionId)).toMatchObject({
      status: 'rejected',
      decision: { outcome: 'rejected', by: 'operator' },
    });
    await expect(adminJson('job:approve', '--completion', two.completionId)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('already rejected'),
    });

    await until(
      () => repo.getCompletion(one.completionId),
      (c) => c?.status === 'paid',
    );
    expect((await ledger.balance(one.agent.wallet)).balance).toBe(25);
    expect((await ledger.balance(two.agent.wallet)).balance).toBe(0);
    expect((await ledger.balance(PLATFORM_ACCOUNT)).balance).toBe(475);
  }, 240_000);

  it('job:fund retries approved completions waiting for funds', async () => {
    const job = await adminJson('job:create', '--kind', 'proof', '--title', 'Big reward', '--reward', '5000', '--open');
    const { agent, completionId } = await reserveAndComplete(job._id);
    await adminJson('job:approve', '--completion', completionId);
    await until(
      () => repo.getCompletion(completionId),
      (c) => c?.payment.status === 'awaiting_funds',
    );
    expect(await adminJson('job:completions', '--awaiting-funds')).toContainEqual(
      expect.objectContaining({ completion_id: completionId, status: 'approved', payment: 'awaiting_funds' }),
    );
    const funded = await adminJson('job:fund', '--credits', '10000');
    expect(funded.completions_retried).toBe(1);
    const paid = await until(
      () => repo.getCompletion(completionId),
      (c) => c?.status === 'paid',
    );
    expect(paid!.payment.status).toBe('paid');
    expect((await ledger.balance(agent.wallet)).balance).toBe(5000);
  }, 240_000);
});
