import { JobRepository } from '../../shared/jobs/repository';
import { TestAgent } from '../support/agent';
import { createJob } from '../support/jobs';
import { startTestStack, type TestStack } from '../support/stack';

describe('job reservations per client address', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({
      env: { JOB_RESERVE_LIMIT_PER_CLIENT: '3', JOB_RESERVE_RATE_WINDOW_SECONDS: '3600' },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('many wallets from one address: 429 + Retry-After in the gateway shape past the limit, nothing reserved', async () => {
    const job = await createJob(stack.db.models, { slots: 10 });
    const wallets = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const a = new TestAgent(stack.server.mainUrl);
        await a.startSession();
        return a;
      }),
    );
    const reserve = (a: TestAgent) => a.call(`/api/external/jobs/${job._id}/reserve`, 'job_reserve', {}, job._id);
    // Each wallet is far below its own cap; only the address is over.
    for (const a of wallets.slice(0, 3)) expect((await reserve(a)).status).toBe(200);
    const refused = await reserve(wallets[3]!);
    expect([refused.status, refused.body.error_code, refused.body.rate_limit?.limit]).toEqual([429, 'rate_limited', 3]);
    expect(refused.body).toMatchObject({
      error: 'Too Many Requests',
      message: expect.stringContaining('job reservations from one address'),
    });
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.rate_limit.retry_after_seconds));
    expect(await new JobRepository(stack.db.models).latestReservation(job._id, wallets[3]!.wallet)).toBeNull();
  });
});
