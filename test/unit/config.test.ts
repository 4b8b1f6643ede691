import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ConfigError, parseConfig } from '../../shared/platform/config/index';

describe('configuration from the environment', () => {
  it('applies the documented defaults', () => {
    const c = parseConfig({});
    expect(c).toMatchObject({
      port: 8080,
      apiPort: 8081,
      publicBaseUrl: 'http://localhost:8080',
      temporalAddress: '127.0.0.1:7233',
      temporalNamespace: 'default',
    });
    expect(c.x402).toMatchObject({ mode: 'testnet', rpcUrls: {}, settleWaitMs: 20000 });
    expect(c.jobReserveRateLimits).toEqual({ windowSeconds: 3600, reservePerClient: 30 });
    // Housekeeping deletes rate-limit rows an hour old: a longer window would forget hits inside it.
    expect(() => parseConfig({ JOB_RESERVE_RATE_WINDOW_SECONDS: '7200' })).toThrow(/JOB_RESERVE_RATE_WINDOW_SECONDS/);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it("bounds a worker's workflow cache: the SDK's default when unset, at least its 40 concurrent tasks when set", () => {
    expect(parseConfig({}).workerMaxCachedWorkflows).toBeUndefined();
    expect(parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: '200' }).workerMaxCachedWorkflows).toBe(200);
    expect(() => parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: '39' })).toThrow(/WORKER_MAX_CACHED_WORKFLOWS/);
  });

  it('names every bad variable in one error', () => {
    expect(() => parseConfig({ PORT: 'eighty', MONGODB_URI: 'http://nope', X402_NETWORK_MODE: 'moon' })).toThrow(
      ConfigError,
    );
    try {
      parseConfig({ PORT: 'eighty', MONGODB_URI: 'http://nope', X402_NETWORK_MODE: 'moon' });
    } catch (err) {
      expect((err as Error).message).toMatch(/PORT/);
      expect((err as Error).message).toMatch(/MONGODB_URI/);
      expect((err as Error).message).toMatch(/X402_NETWORK_MODE/);
    }
  });

  it('never echoes a secret it refuses', () => {
    const secretish = '0x' + 'ab'.repeat(31) + 'zz';
    expect(() => parseConfig({ X402_SETTLEMENT_PRIVATE_KEY: secretish })).toThrow(/X402_SETTLEMENT_PRIVATE_KEY/);
    try {
      parseConfig({ X402_SETTLEMENT_PRIVATE_KEY: secretish });
    } catch (err) {
      expect((err as Error).message).not.toContain(secretish);
    }
  });

  it('treats empty variables as unset and reads RPC URLs per chain', () => {
    const c = parseConfig({
      X402_PAY_TO: '',
      PORT: '',
      X402_RPC_URL_84532: 'http://127.0.0.1:8545',
      X402_RPC_URL_8453: 'https://base.example',
    });
    expect(c.port).toBe(8080);
    expect(c.x402.payTo).toBeUndefined();
    expect(c.x402.rpcUrls).toEqual({ 84532: 'http://127.0.0.1:8545', 8453: 'https://base.example' });
  });

  it('stops the API process at start with a message naming the bad variable', async () => {
    const root = path.resolve(__dirname, '../..');
    const run = promisify(execFile);
    const failed = await run(path.join(root, 'node_modules/.bin/tsx'), ['api/main.ts'], {
      cwd: root,
      env: { ...process.env, API_PORT: '99999' },
    }).catch((e) => e);
    expect(failed.code).toBe(78);
    expect(failed.stderr).toMatch(/API_PORT/);
  });
});
