import net, { type AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Repositories } from '../../shared/composition/root';
import { NOT_PUBLIC } from '../../shared/platform/http/outbound';
import { logger } from '../../shared/platform/logger/index';
import type { AttemptResult } from '../../shared/webhook-runs/callback-delivery';
import { createCallbackActivities } from '../../temporal/webhook-callbacks/activities';
import { openTestDb } from '../support/db';
import { repositoriesOf } from '../support/repositories';
import { storeFinishedRun } from '../support/runs-store';
import { type GroupSetup, setupGroup } from '../support/webhook-runs';

jest.setTimeout(60_000);

const SCHEDULE = { maxAttempts: 1, initialIntervalMs: 1000, backoffCoefficient: 2, maxIntervalMs: 10_000, jitter: 0 };

/**
 * What a group reads of a failed callback (callback_last_error) tells it nothing our resolver
 * answered: not the addresses an internal name has, not the address a refused connection went to.
 * The operator's log has them. One delivery attempt in a MockActivityEnvironment, on the real store.
 */
describe('a failed callback attempt keeps resolver answers out of callback_last_error and the delivery log', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let repos: Repositories;
  let g: GroupSetup;
  let warn: jest.SpyInstance;
  beforeAll(async () => {
    db = await openTestDb();
    repos = repositoriesOf(db);
    g = await setupGroup(db);
  });
  afterAll(async () => {
    await db?.drop();
  });
  beforeEach(() => {
    warn = jest.spyOn(logger, 'warn');
  });
  afterEach(() => warn.mockRestore());

  async function attempt(url: string, o: Partial<Parameters<typeof createCallbackActivities>[0]> = {}) {
    const runId = await storeFinishedRun(db, g, url);
    const acts = createCallbackActivities({ ...repos, callbacks: { allowLoopback: false }, ...o });
    const result: AttemptResult = await new MockActivityEnvironment().run(acts.attemptDelivery, {
      runId,
      groupId: g.groupId,
      attempt: 1,
      schedule: SCHEDULE,
      timeoutMs: 5000,
    });
    const { run } = (await repos.runs.get(runId))!;
    // The delivery log the group reads holds the same text as callback_last_error, never more.
    const { attempts } = await repos.deliveries.page(runId, { limit: 10 });
    expect(attempts).toHaveLength(1);
    expect(attempts[0].error).toBe(run.callback_last_error);
    return { runId, result, run, attempt: attempts[0] };
  }
  const logged = () => warn.mock.calls.map(([, meta]) => meta as Record<string, unknown>);

  it('a host name that resolves to a private address: a generic refusal stored, host and addresses logged', async () => {
    const resolve = async () => [
      { address: '10.20.30.40', family: 4 },
      { address: 'fd00::1234', family: 6 },
    ];
    const { runId, result, run, attempt: logged1 } = await attempt('https://billing.corp.internal/hooks', { resolve });
    expect(result).toMatchObject({ outcome: 'failed', status: null });
    expect(logged1).toMatchObject({ outcome: 'refused', status_code: null, error: NOT_PUBLIC });
    expect(run.callback_status).toBe('failed');
    expect(run.callback_last_error).toBe(NOT_PUBLIC);
    expect(run.callback_last_error).not.toMatch(/10\.20\.30\.40|fd00|private|uniqueLocal/);
    expect(logged()).toContainEqual(
      expect.objectContaining({
        run_id: runId,
        detail: expect.stringMatching(/billing\.corp\.internal resolves to 10\.20\.30\.40, fd00::1234: .*private/),
      }),
    );
  });

  it('a name the system resolver maps to loopback (loopback not allowed): no address in the stored error', async () => {
    const { run } = await attempt('https://localhost:8443/hooks');
    expect(run.callback_last_error).toBe(NOT_PUBLIC);
    expect(logged().map((m) => m.detail)).toContainEqual(expect.stringMatching(/^localhost resolves to .*loopback/));
  });

  it('a connection refused at the address the host resolved to: the stored error names the failure, not the address', async () => {
    // A port nobody listens on, on loopback (allowed here, as in tests): the socket error's message ends with it.
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise((r) => probe.close(r));
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    const { result, run } = await attempt(`https://hooks.corp.internal:${port}/x`, {
      resolve,
      callbacks: { allowLoopback: true },
    });
    expect(result.outcome).toBe('failed');
    expect(run.callback_last_error).toBe('connect ECONNREFUSED; gave up after 1 attempts');
    expect(logged().map((m) => m.detail)).toContainEqual(expect.stringContaining(`127.0.0.1:${port}`));
  });
});
