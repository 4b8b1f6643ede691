import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/services/process';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { expiryScheduleId, runExpirySweep } from '../../temporal/credit-expiry/client';
import { CREDITS_QUEUE } from '../../temporal/credit-expiry/config';
import { hasSample, sample } from '../support/prometheus';
import { startTestStack, TestStack } from '../support/stack';

const ROOT = path.resolve(__dirname, '../..');
const TOKEN = 'worker-metrics-test-token-0123';
const AUTH = { authorization: `Bearer ${TOKEN}` };

async function scrape(url: string, timeoutMs: number, until: (text: string) => boolean): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const res = await fetch(url, { headers: AUTH, signal: AbortSignal.timeout(5000) });
      last = await res.text();
      if (res.status === 200 && until(last)) return last;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`${url} never showed what was expected; last scrape:\n${last.slice(0, 3000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('a worker process exposes its metrics on WORKER_METRICS_PORT', () => {
  let stack: TestStack;
  let child: ChildProcess | undefined;
  let url: string;
  let port: number;

  beforeAll(async () => {
    stack = await startTestStack();
    port = await freePort();
    url = `http://127.0.0.1:${port}/metrics`;
    // Its own process group: tsx runs node as a child, and the kill must reach both.
    child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['workers/main.ts', '--queues', 'credits'], {
      cwd: ROOT,
      env: { ...process.env, WORKER_METRICS_PORT: String(port), METRICS_TOKEN: TOKEN, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
      detached: true,
    });
  }, 60_000);
  afterAll(async () => {
    if (child?.pid) process.kill(-child.pid, 'SIGKILL');
    await stack.temporal.client.schedule
      .getHandle(expiryScheduleId(stack.temporal))
      .delete()
      .catch(() => undefined);
    await stack.stop();
  });

  it('serves the Temporal runtime metrics of its queue and the counters of the activities it ran', async () => {
    const queue = stack.temporal.queue(CREDITS_QUEUE);
    // Up, and polling its queue.
    await scrape(url, 90_000, (t) => hasSample(t, 'temporal_worker_task_slots_available', { task_queue: queue }));
    // The worker registered the 5-minute sweep before polling; paused, it cannot expire the grant
    // below before our own sweep does when a 5-minute boundary falls in between.
    await stack.temporal.client.schedule
      .getHandle(expiryScheduleId(stack.temporal))
      .pause('metrics test runs its own sweep');

    const wallet = '0x' + 'e5'.repeat(20);
    const soon = new Date(Date.now() + 300);
    await new LedgerStore(stack.db.models).grant({
      wallet,
      grantId: 'lapses',
      credits: 12,
      creditType: 'admin_grant',
      expiresAt: soon,
    });
    await new Promise((r) => setTimeout(r, Math.max(0, soon.getTime() - Date.now()) + 100));
    expect((await runExpirySweep(stack.temporal, `metrics-${Date.now()}`)).expirations).toBe(1);

    const text = await scrape(
      url,
      30_000,
      (t) => sample(t, 'temporal_activity_schedule_to_start_latency_count', { task_queue: queue }) >= 1,
    );
    // The SDK Core's own metrics, per task queue.
    expect(hasSample(text, 'temporal_activity_schedule_to_start_latency_bucket', { task_queue: queue })).toBe(true);
    expect(
      sample(text, 'temporal_workflow_task_schedule_to_start_latency_count', { task_queue: queue }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      hasSample(text, 'temporal_worker_task_slots_available', { task_queue: queue, worker_type: 'ActivityWorker' }),
    ).toBe(true);
    expect(hasSample(text, 'temporal_worker_task_slots_used', { task_queue: queue })).toBe(true);
    // Ours: the expiration the sweep's activity wrote in that process, and its process metrics.
    expect(sample(text, 'credit_ledger_entries_total', { type: 'expiration' })).toBe(1);
    expect(sample(text, 'credit_ledger_credits_total', { type: 'expiration' })).toBe(12);
    expect(text).toContain('process_resident_memory_bytes');
  }, 180_000);
  it('wants METRICS_TOKEN as a bearer token when it is set, as the API does, and listens on loopback only by default', async () => {
    await scrape(url, 90_000, (t) => t.includes('process_resident_memory_bytes'));
    const none = await fetch(url);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error_code: 'metrics_token_invalid' });
    const wrong = await fetch(url, { headers: { authorization: 'Bearer not-the-metrics-token-at-all' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain('process_resident_memory_bytes');
    expect((await fetch(url, { headers: AUTH })).status).toBe(200);

    // Bound to 127.0.0.1 (WORKER_METRICS_HOST unset): this machine's other addresses do not answer.
    const external = Object.values(os.networkInterfaces())
      .flat()
      .filter((a) => a && !a.internal && a.family === 'IPv4')
      .map((a) => a!.address);
    for (const address of external) {
      const reached = await new Promise<boolean>((resolve) => {
        const socket = net.connect({ host: address, port, timeout: 2000 });
        socket.once('connect', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => resolve(false));
        socket.once('timeout', () => (socket.destroy(), resolve(false)));
      });
      expect({ address, reached }).toEqual({ address, reached: false });
    }
  }, 120_000);
});
