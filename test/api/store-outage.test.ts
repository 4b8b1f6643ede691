import { startFerretDb } from '../../scripts/services/ferretdb';
import { freePort } from '../../scripts/services/process';
import { startTemporalDev } from '../../scripts/services/temporal';
import { runPing } from '../../temporal/ping/client';
import { QUEUES } from '../../workers/queues';
import { runWorkers } from '../../workers/run-workers';
import { http } from '../support/http';
import { startTestStack, TestStack } from '../support/stack';

describe('store unreachable at start', () => {
  let stack: TestStack;
  let port: number;
  let mongo: Awaited<ReturnType<typeof startFerretDb>> | undefined;
  beforeAll(async () => {
    port = await freePort();
    stack = await startTestStack({ env: { MONGODB_URI: `mongodb://127.0.0.1:${port}` }, waitForStore: false });
  });
  afterAll(async () => {
    await stack.stop();
    await mongo?.stop();
  });

  it('serves /health, answers 503 in the gateway shape, then recovers by itself when the store appears', async () => {
    const health = await http('GET', `${stack.server.apiUrl}/health`);
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    const details = await http('GET', `${stack.server.apiUrl}/health/details`);
    expect(details.body.store).toBe('down');

    const down = await http('POST', `${stack.server.mainUrl}/api/external/auth/session`, {
      body: { wallet_address: '0x' + 'd'.repeat(40) },
      headers: { 'x-request-id': 'outage-1' },
    });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('2');
    expect(down.body).toMatchObject({
      error: 'Service Unavailable',
      error_code: 'store_unavailable',
      request_id: 'outage-1',
    });

    mongo = await startFerretDb({ port });
    await stack.db.ready(30_000);
    const up = await http('POST', `${stack.server.mainUrl}/api/external/auth/session`, {
      body: { wallet_address: '0x' + 'd'.repeat(40) },
    });
    expect(up.status).toBe(200);
    expect(up.body.data.session_nonce).toMatch(/^sn_/);
  });
});

describe('Temporal unreachable at start', () => {
  it('serves /health, reports Temporal down, then recovers by itself when Temporal appears', async () => {
    const port = await freePort();
    const stack = await startTestStack({ env: { TEMPORAL_ADDRESS: `127.0.0.1:${port}` } });
    let temporal: Awaited<ReturnType<typeof startTemporalDev>> | undefined;
    let workers: Awaited<ReturnType<typeof runWorkers>> | undefined;
    try {
      expect(await http('GET', `${stack.server.apiUrl}/health`)).toMatchObject({ status: 200, body: { status: 'ok' } });
      expect((await http('GET', `${stack.server.apiUrl}/health/details`)).body).toMatchObject({
        store: 'up',
        temporal: 'down',
      });
      await expect(
        stack.temporal.client.withDeadline(Date.now() + 1500, () => runPing(stack.temporal, 'while-down')),
      ).rejects.toThrow();

      temporal = await startTemporalDev({ port });
      let details = await http('GET', `${stack.server.apiUrl}/health/details`);
      for (const deadline = Date.now() + 60_000; Date.now() < deadline && details.body.temporal !== 'up';) {
        await new Promise((r) => setTimeout(r, 500));
        details = await http('GET', `${stack.server.apiUrl}/health/details`);
      }
      expect(details.body.temporal).toBe('up');
      workers = await runWorkers(
        { config: stack.config, db: stack.db, temporal: stack.temporal, identity: 'after-outage' },
        [...QUEUES],
        stack.config.temporalAddress,
      );
      const ping = await runPing(stack.temporal, 'after-outage');
      expect(ping.workflowId).toMatch(/after-outage/);
    } finally {
      await workers?.shutdown();
      await stack.stop();
      await temporal?.stop();
    }
  }, 240_000);
});
