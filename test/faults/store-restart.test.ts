import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFerretDbOver } from '../../scripts/services/ferretdb';
import { startPostgres } from '../../scripts/services/postgres';
import { http } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';

/**
 * The PostgreSQL server behind FerretDB stopped and started again under load, the API and
 * FerretDB left running: meanwhile every request answers 503 in the spec's shape (no 500), no
 * request succeeds without its write being stored, and afterwards everything works again
 * without restarting anything.
 */
describe('fault: the store restarted under load', () => {
  let dir: string;
  let pg: Awaited<ReturnType<typeof startPostgres>>;
  let ferret: Awaited<ReturnType<typeof startFerretDbOver>>;
  let stack: TestStack;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'fault-store-'));
    await chmod(dir, 0o755);
    pg = await startPostgres({ dataDir: path.join(dir, 'data'), profile: 'durable' });
    ferret = await startFerretDbOver(pg.url);
    stack = await startTestStack({ env: { MONGODB_URI: ferret.uri } });
  });
  afterAll(async () => {
    await stack?.stop();
    await ferret?.stop();
    await pg?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers 503 while PostgreSQL is down, stores every success, and recovers by itself', async () => {
    const answers: Array<{ status: number; nonce?: string; code?: string }> = [];
    let running = true;
    let n = 0;
    const client = async () => {
      while (running) {
        const wallet = '0x' + (n++).toString(16).padStart(40, '0');
        const res = await http('POST', `${stack.server.mainUrl}/api/external/auth/session`, {
          body: { wallet_address: wallet },
        });
        answers.push({ status: res.status, nonce: res.body?.data?.session_nonce, code: res.body?.error_code });
        if (res.status !== 200) await new Promise((r) => setTimeout(r, 50));
      }
    };
    const clients = Array.from({ length: 4 }, client);
    await new Promise((r) => setTimeout(r, 1500));
    const before = answers.length;
    await pg.stop();
    // Down until the API has answered 503 at least once (at least 3 s), however slowly a loaded machine answers.
    const downSince = Date.now();
    while (
      Date.now() - downSince < 3000 ||
      (Date.now() - downSince < 60_000 && !answers.slice(before).some((a) => a.status === 503))
    ) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const during = answers.slice(before);
    pg = await startPostgres({ port: pg.port, dataDir: path.join(dir, 'data'), profile: 'durable' });
    const restarted = answers.length;
    // Recovery: a request succeeds again by itself, through the same API, FerretDB and driver.
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && !answers.slice(restarted).some((a) => a.status === 200))
      await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 1000));
    running = false;
    await Promise.all(clients);

    expect(answers.slice(0, before).every((a) => a.status === 200)).toBe(true);
    expect(during.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
    expect(answers.filter((a) => a.status === 503).every((a) => a.code === 'store_unavailable')).toBe(true);
    expect(during.filter((a) => a.status === 503).length).toBeGreaterThan(0);
    expect(answers.slice(restarted).some((a) => a.status === 200)).toBe(true);
    const ok = answers.filter((a) => a.status === 200).map((a) => a.nonce!);
    const stored = await stack.db.models.authSessions.countDocuments({ _id: { $in: ok } });
    expect(stored).toBe(ok.length);
  });
});
