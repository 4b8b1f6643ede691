import { LedgerStore } from '../../shared/credits/ledger-store';
import { adminCli, adminJson } from '../support/admin-cli';
import { http } from '../support/http';
import { startTestStack, TestStack } from '../support/stack';

// Each command is a fresh process (a second alone, more on a loaded machine).
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
    const granted = await adminJson('credits:grant', '--wallet', wallet, '--credits', '1500', '--id', 'ops-1');
    expect(granted).toMatchObject({ replayed: false, balance_after: 1500 });
    expect(await adminJson('credits:grant', '--wallet', wallet, '--credits', '1500', '--id', 'ops-1')).toMatchObject({
      replayed: true,
    });

    const token = await adminJson('token:create', '--wallet', wallet, '--label', 'ops');
    const bal = await http('GET', `${stack.server.apiUrl}/credits/balance`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(bal.body.data.balance).toBe(1500);

    expect(await adminJson('credits:revoke', '--wallet', wallet, '--grant', 'ops-1', '--reason', 'test')).toEqual({
      revoked_credits: 1500,
    });
    expect((await new LedgerStore(stack.db.models).balance(wallet)).balance).toBe(0);

    expect(await adminJson('token:revoke', '--token-id', token.token_id)).toEqual({ revoked: true });
    const after = await http('GET', `${stack.server.apiUrl}/credits/balance`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(after.status).toBe(401);
  });

  it('refuses bad arguments with a message and a non-zero exit', async () => {
    await expect(adminJson('credits:grant', '--wallet', 'nope', '--credits', '5')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--wallet is not valid'),
    });
    await expect(adminJson('no:such-command')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown command'),
    });
  });

  it('prints one JSON line with --json and a readable rendering without', async () => {
    const wallet = '0x' + 'c4'.repeat(20);
    const json = await adminCli(['credits:balance', '--wallet', wallet, '--json']);
    expect(json.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(json)).toEqual({ balance: 0, expiration: null, expires_in_days: null });
    const human = await adminCli(['credits:balance', '--wallet', wallet]);
    expect(human).toContain('balance: 0');
    const listing = await adminCli(['help']);
    expect(listing).toMatch(/credits:grant[\s\S]*token:revoke[\s\S]*chain:mint/);
  });
});
