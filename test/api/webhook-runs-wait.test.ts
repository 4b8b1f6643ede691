import { awaitRunEnd } from '../../temporal/webhook-runs/client';
import { http } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';
import { addWorkflow, type GroupSetup, setupGroup, templateWorkflow, trigger } from '../support/webhook-runs';

/** The gauge of clients waiting in this (test) process, from the bearer host's /metrics. */
async function waiters(stack: TestStack): Promise<number> {
  const res = await fetch(`${stack.server.apiUrl}/metrics`);
  const line = (await res.text()).split('\n').find((l) => l.startsWith('webhook_run_waiters '));
  return Number(line?.split(' ')[1] ?? NaN);
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * GET /api/agent-webhooks/runs/{id}?wait_seconds=N on the real API, Temporal and store. The first
 * stack has no workers, so a run stays queued until the test starts a second API instance (same
 * store) with workers: the waits then end at the run's end, not at their deadline.
 */
describe('webhook runs: waiting for a run to end', () => {
  let a: TestStack;
  let b: TestStack | undefined;
  let g: GroupSetup;
  let wf: string;

  const getRun = (stack: TestStack, runId: string, query = '') =>
    http('GET', `${stack.server.mainUrl}/api/agent-webhooks/runs/${runId}${query}`, {
      headers: { authorization: `Bearer ${g.token}` },
    });

  beforeAll(async () => {
    a = await startTestStack();
    g = await setupGroup(a.db);
    wf = await addWorkflow(a.db, g, templateWorkflow('waited'));
  });
  afterAll(async () => {
    await b?.stop();
    await a.stop();
  });

  it('refuses a wait that is not a number of seconds between 0 and 30 with a 400', async () => {
    const queued = await trigger(a.server.mainUrl, g.token, wf, { prompt: 'bad waits' });
    const runId = queued.body.data.run.run_id;
    for (const bad of ['31', '-1', 'soon', '1e9', '']) {
      const res = await getRun(a, runId, `?wait_seconds=${bad}`);
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
      expect(res.body).toMatchObject({ success: false, error: 'invalid_request' });
      expect(JSON.stringify(res.body)).toContain('wait_seconds');
    }
    const plain = await getRun(a, runId, '?wait_seconds=0');
    expect(plain.status).toBe(200);
    expect(plain.body.data.run).toMatchObject({ run_id: runId, status: 'queued' });
  }, 60_000);

  it('answers a wait that times out with the run as it is, after the wait and not before', async () => {
    const queued = await trigger(a.server.mainUrl, g.token, wf, { prompt: 'nobody runs me yet' });
    const started = Date.now();
    const res = await getRun(a, queued.body.data.run.run_id, '?wait_seconds=1.5');
    const took = Date.now() - started;
    expect(res.status).toBe(200);
    expect(res.body.data.run.status).toBe('queued');
    expect(took).toBeGreaterThanOrEqual(1400);
    expect(took).toBeLessThan(10_000);
    await until(async () => (await waiters(a)) === 0, 10_000);
  }, 60_000);

  it('frees the waiter when the client hangs up', async () => {
    const queued = await trigger(a.server.mainUrl, g.token, wf, { prompt: 'abandoned wait' });
    const before = await waiters(a);
    const hangUp = new AbortController();
    const pending = fetch(
      `${a.server.mainUrl}/api/agent-webhooks/runs/${queued.body.data.run.run_id}?wait_seconds=30`,
      {
        headers: { authorization: `Bearer ${g.token}` },
        signal: hangUp.signal,
      },
    ).catch((err: Error) => err.name);
    await until(async () => (await waiters(a)) === before + 1, 20_000);
    hangUp.abort();
    expect(await pending).toBe('AbortError');
    await until(async () => (await waiters(a)) === before, 10_000);
  }, 60_000);

  it('wakes every waiter, on this API instance and on another one, as soon as the run ends', async () => {
    const queued = await trigger(a.server.mainUrl, g.token, wf, { prompt: 'Ada' });
    const runId = queued.body.data.run.run_id;
    // The engine's watch of the run in flight (what each API process keeps per awaited run).
    const watched = awaitRunEnd(a.temporal, runId, AbortSignal.timeout(170_000)).catch((err: Error) => err.message);
    // A second API instance on the same store, with the workers this run needs; it starts no run.
    b = await startTestStack({ workers: true, keepDatabase: true });
    const base = await waiters(a);
    const wait = (stack: TestStack) =>
      getRun(stack, runId, '?wait_seconds=30').then((res) => ({ res, at: Date.now() }));
    const waits = [wait(a), wait(a), wait(a), wait(b)];
    const sent = Date.now();
    const answers = await Promise.all(waits);
    await expect(watched).resolves.toMatchObject({ end: 'ended' });
    expect(base).toBeGreaterThanOrEqual(0);
    for (const { res, at } of answers) {
      expect(res.status).toBe(200);
      expect(res.body.data.run).toMatchObject({ run_id: runId, status: 'completed', response_text: 'Hello, Ada!' });
      const completedAt = Date.parse(res.body.data.run.completed_at);
      // Woken by the end, not by the 30 s deadline: within a few seconds of the run's completion.
      expect(at - completedAt).toBeLessThan(5000);
      expect(at - sent).toBeLessThan(25_000);
    }
    await until(async () => (await waiters(a)) === 0, 10_000);
    // A terminal run answers at once, wait or not.
    const started = Date.now();
    const again = await getRun(b, runId, '?wait_seconds=30');
    expect(again.body.data.run.status).toBe('completed');
    expect(Date.now() - started).toBeLessThan(5000);
    // The wake-up came from the run's history (not the store fallback): it shows the end.
    const signal = AbortSignal.timeout(20_000);
    await expect(awaitRunEnd(a.temporal, runId, signal)).resolves.toMatchObject({ end: 'ended' });
    await expect(awaitRunEnd(a.temporal, 'run_000000000000000000000000', signal)).resolves.toEqual({ end: 'unknown' });
  }, 240_000);
});
