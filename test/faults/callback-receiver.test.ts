import { Webhook } from 'standardwebhooks';
import { runCallbackProgress } from '../../temporal/webhook-runs/client';
import { type HttpsReceiver, type ReceivedCallback, startHttpsReceiver } from '../support/https-receiver';
import { startTestStack, type TestStack } from '../support/stack';
import {
  addWorkflow,
  type GroupSetup,
  setupGroup,
  templateWorkflow,
  trigger,
  waitForRun,
} from '../support/webhook-runs';

// Roomy enough that a prompt answer never times out on a loaded machine (500 ms did once in CI;
// a TLS exchange with the receiver in the test's own busy process can take seconds).
const TIMEOUT_MS = 5000;
const INITIAL_MS = 200;

/**
 * A callback receiver that misbehaves the ways real ones do, end to end through a trigger, the
 * run's own workflow and a real HTTPS receiver: no answer in time, then 500, then 429 with
 * Retry-After, then 200. The callback is delivered once, with every attempt recorded; a 410
 * stops delivery at once.
 */
describe('fault: a callback receiver that times out, fails, throttles, then accepts', () => {
  let stack: TestStack;
  let receiver: HttpsReceiver;
  let g: GroupSetup;
  let wf: string;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    stack = await startTestStack({
      workers: true,
      env: {
        CALLBACK_ALLOW_LOOPBACK: 'true',
        CALLBACK_CA_FILE: receiver.caFile,
        CALLBACK_TIMEOUT_MS: String(TIMEOUT_MS),
        CALLBACK_INITIAL_INTERVAL_MS: String(INITIAL_MS),
        CALLBACK_BACKOFF_COEFFICIENT: '2',
        CALLBACK_JITTER: '0',
        CALLBACK_MAX_ATTEMPTS: '6',
      },
    });
    g = await setupGroup(stack.db);
    wf = await addWorkflow(stack.db, g, templateWorkflow('receiver faults'));
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  const received = (runId: string): ReceivedCallback[] =>
    receiver.received.filter((r) => r.body.includes(`"run_id":"${runId}"`));
  const settled = (runId: string) =>
    waitForRun(
      stack.server.mainUrl,
      runId,
      g.token,
      60_000,
      (r) => r.status === 'completed' && ['delivered', 'failed'].includes(r.callback_status),
    );

  it('times out, 500, 429 with Retry-After, 200: delivered once, four attempts recorded, the Retry-After honoured', async () => {
    receiver.script([
      { status: 200, delayMs: TIMEOUT_MS * 2 },
      { status: 500 },
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 200 },
    ]);
    const res = await trigger(stack.server.mainUrl, g.token, wf, {
      prompt: 'faults',
      callback_url: `${receiver.origin}/hooks/faulty`,
    });
    expect(res.status).toBe(200);
    const runId = res.body.data.run.run_id;

    const run = await settled(runId);
    expect(run).toMatchObject({ callback_status: 'delivered', callback_last_status: 200, callback_last_error: null });
    expect(run.run_metadata.callback_attempts).toBe(4);

    const progress = await runCallbackProgress(stack.temporal, runId);
    // Backoff after the timeout and the 500; the receiver's Retry-After (1 s) beats the third (800 ms).
    expect(progress).toEqual({ attempts: 4, waits: [INITIAL_MS, INITIAL_MS * 2, 1000], status: 'delivered' });

    // Nothing more is sent after the 200, and every attempt is the same message, each signed anew.
    await new Promise((r) => setTimeout(r, 1500));
    const hits = received(runId);
    expect(hits).toHaveLength(4);
    expect(hits[3].at - hits[2].at).toBeGreaterThanOrEqual(1000);
    expect(new Set(hits.map((h) => h.headers['webhook-id']))).toEqual(new Set([`msg_${runId}`]));
    const wh = new Webhook(g.webhookSecret);
    const bodies = hits.map((h) => wh.verify(h.body, h.headers) as any);
    // Each attempt's body carries the outcome of the one before it.
    expect(bodies.map((b) => b.data.run.callback_last_status)).toEqual([null, null, 500, 429]);
    expect(bodies[1].data.run.callback_last_error).toBe(`no answer within ${TIMEOUT_MS} ms`);
  });

  it('a 410 stops delivery at once: one attempt, failed, never retried', async () => {
    receiver.script([{ status: 410 }]);
    const res = await trigger(stack.server.mainUrl, g.token, wf, {
      prompt: 'gone',
      callback_url: `${receiver.origin}/hooks/gone`,
    });
    const runId = res.body.data.run.run_id;

    const run = await settled(runId);
    expect(run).toMatchObject({ callback_status: 'failed', callback_last_status: 410 });
    expect(run.run_metadata.callback_attempts).toBe(1);
    await new Promise((r) => setTimeout(r, INITIAL_MS * 4));
    expect(received(runId)).toHaveLength(1);
    expect(await runCallbackProgress(stack.temporal, runId)).toMatchObject({ attempts: 1, status: 'failed' });
  });
});
