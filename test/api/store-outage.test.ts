import os from 'node:os';
import path from 'node:path';
import { startFerretDb } from '../../scripts/services/ferretdb';
import { freePort } from '../../scripts/services/process';
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
    expect(down.body).toMatchObject({ error: 'Service Unavailable', error_code: 'store_unavailable', request_id: 'outage-1' });

    mongo = await startFerretDb({ port, dataDir: path.join(os.tmpdir(), `outage-${port}`) });
    await stack.db.ready(30_000);
    const up = await http('POST', `${stack.server.mainUrl}/api/external/auth/session`, { body: { wallet_address: '0x' + 'd'.repeat(40) } });
    expect(up.status).toBe(200);
    expect(up.body.data.session_nonce).toMatch(/^sn_/);
  });
});
