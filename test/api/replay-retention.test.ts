import { pruneAuthRecords } from '../../shared/identity/housekeeping';
import { TestAgent } from '../support/agent';
import { http } from '../support/http';
import { startTestStack, TestStack } from '../support/stack';

describe('used request ids are kept until their own session expires', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ env: { SESSION_NONCE_TTL_SECONDS: '7200' } });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('a shorter SESSION_NONCE_TTL_SECONDS in housekeeping never reopens replay of a live session', async () => {
    const agent = new TestAgent(stack.server.mainUrl);
    await agent.startSession();
    const envelope = await agent.envelope('balance', {}, undefined, 'keep-me');
    const url = `${stack.server.mainUrl}/api/external/credits/balance`;
    expect((await http('POST', url, { body: envelope })).status).toBe(200);
    const stored = await stack.db.models.usedRequests.findById(`${agent.wallet}:keep-me`).lean();
    expect(stored?.expires_at?.getTime()).toBeGreaterThan(Date.now() + 7000 * 1000);

    // Housekeeping runs 90 minutes later in a deployment that has since lowered the TTL to 60 s.
    await pruneAuthRecords(stack.db.models, new Date(Date.now() + 90 * 60_000), 60);
    expect(await stack.db.models.usedRequests.findById(`${agent.wallet}:keep-me`).lean()).not.toBeNull();
    const replay = await http('POST', url, { body: envelope });
    expect([replay.status, replay.body.error_code]).toEqual([401, 'request_replayed']);

    // Once its session is over (plus the hour of slack), the row goes.
    await pruneAuthRecords(stack.db.models, new Date(Date.now() + 3.1 * 3600_000));
    expect(await stack.db.models.usedRequests.findById(`${agent.wallet}:keep-me`).lean()).toBeNull();
  });
});
