import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { http } from '../support/http';
import { startTestStack, TestStack } from '../support/stack';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

async function admin(...args: string[]): Promise<any> {
  const { stdout } = await run(path.join(ROOT, 'node_modules/.bin/tsx'), ['scripts/admin.ts', ...args, '--json'], {
    cwd: ROOT,
    env: process.env,
  });
  return JSON.parse(stdout);
}

// Each command is a fresh tsx process (a few seconds alone, far more on a loaded machine).
jest.setTimeout(240_000);

describe('operator CLI against the real store', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('grants and revokes credits and issues a token the bearer host accepts', async () => {
    const wallet = '0x' + 'c3'.repeat(20);
    const granted = await admin('credits:grant', '--wallet', wallet, '--credits', '1500', '--id', 'ops-1');
    expect(granted).toMatchObject({ replayed: false, balance_after: 1500 });
    expect(await admin('credits:grant', '--wallet', wallet, '--credits', '1500', '--id', 'ops-1')).toMatchObject({
      replayed: true,
    });

    const token = await admin('token:create', '--wallet', wallet, '--label', 'ops');
    const bal = await http('GET', `${stack.server.apiUrl}/credits/balance`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(bal.body.data.balance).toBe(1500);

    expect(await admin('credits:revoke', '--wallet', wallet, '--grant', 'ops-1', '--reason', 'test')).toEqual({
      revoked_credits: 1500,
    });
    expect((await new LedgerStore(stack.db.models).balance(wallet)).balance).toBe(0);

    expect(await admin('token:revoke', '--token-id', token.token_id)).toEqual({ revoked: true });
    const after = await http('GET', `${stack.server.apiUrl}/credits/balance`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(after.status).toBe(401);
  });

  it('refuses bad arguments with a message and a non-zero exit', async () => {
    await expect(admin('credits:grant', '--wallet', 'nope', '--credits', '5')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--wallet is not valid'),
    });
    await expect(admin('no:such-command')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown command'),
    });
  });

  it('prints one JSON line with --json and a readable rendering without', async () => {
    const wallet = '0x' + 'c4'.repeat(20);
    const { stdout: json } = await run(
      path.join(ROOT, 'node_modules/.bin/tsx'),
      ['scripts/admin.ts', 'credits:balance', '--wallet', wallet, '--json'],
      { cwd: ROOT, env: process.env },
    );
    expect(json.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(json)).toEqual({ balance: 0, expiration: null, expires_in_days: null });
    const { stdout: human } = await run(
      path.join(ROOT, 'node_modules/.bin/tsx'),
      ['scripts/admin.ts', 'credits:balance', '--wallet', wallet],
      { cwd: ROOT, env: process.env },
    );
    expect(human).toContain('balance: 0');
    const { stdout: listing } = await run(path.join(ROOT, 'node_modules/.bin/tsx'), ['scripts/admin.ts', 'help'], {
      cwd: ROOT,
      env: process.env,
    });
    expect(listing).toMatch(/credits:grant[\s\S]*token:revoke[\s\S]*chain:mint/);
  });
});
