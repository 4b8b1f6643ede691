import { AccessTokenService } from '../../shared/identity/access-tokens';
import { adminCli } from '../support/admin-cli';
import { openTestDb } from '../support/db';

// Each command is a fresh process (a second alone, more on a loaded machine).
jest.setTimeout(240_000);

describe('operator CLI output: tables, --json, --help, unknown flags', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  beforeAll(async () => {
    db = await openTestDb();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('prints a list as a table with a header and one row per item, and --json as the same one JSON value as before', async () => {
    const wallet = '0x' + 'd5'.repeat(20);
    const tokens = new AccessTokenService(db.models);
    const a = await tokens.issue({ wallet, label: 'first', createdBy: 'operator' });
    const b = await tokens.issue({ wallet, label: 'second label', createdBy: 'operator' });

    const lines = (await adminCli(['token:list', '--wallet', wallet])).trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^TOKEN_ID +LABEL +CREATED_AT +CREATED_BY +EXPIRES_AT +REVOKED_AT$/);
    // newest first, full ids, each column starting where its header starts
    expect(lines[1].startsWith(`${b.token_id}  `)).toBe(true);
    expect(lines[2].startsWith(`${a.token_id}  `)).toBe(true);
    const at = lines[0].indexOf('LABEL');
    expect([lines[1].slice(at).split(/ {2,}/)[0], lines[2].slice(at).split(/ {2,}/)[0]]).toEqual([
      'second label',
      'first',
    ]);
    expect(lines.join('\n')).not.toContain(a.access_token);

    const json = await adminCli(['token:list', '--wallet', wallet, '--json']);
    expect(json.endsWith('\n')).toBe(true);
    expect(json.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(await tokens.list(wallet))));
  });

  it('prints a record with lists as key: value lines followed by a table', async () => {
    const out = await adminCli(['job:list']);
    expect(out).toMatch(/^platform_account: platform:jobs\nplatform_balance: 0\njobs:\n {2}\(none\)\n$/);
  });

  it('--help and help <command> show the usage, summary and every flag with whether it is required, without a store', async () => {
    const noStore = { MONGODB_URI: 'mongodb://127.0.0.1:9/none' };
    const help = await adminCli(['credits:grant', '--help'], noStore);
    expect(help).toContain(
      'usage: npm run admin -- credits:grant (--wallet 0x.. | --workspace ws_..) --credits N [--type TYPE] [--expires-days D] [--id GRANT_ID] [--json]',
    );
    expect(help).toContain("grants credits to a wallet or a workspace's account");
    expect(help).toMatch(/^--credits N +required +how many credits$/m);
    expect(help).toMatch(/^--wallet 0x\.\. +one of --wallet\/--workspace +the wallet to credit$/m);
    expect(help).toMatch(/^--id GRANT_ID +optional +the grant id/m);
    expect(await adminCli(['help', 'credits:grant'], noStore)).toBe(help);
  });

  it('refuses an unknown flag with a message naming the valid ones, exit 2, before touching the store', async () => {
    const refused = adminCli(['token:list', '--wallet', '0x' + 'd5'.repeat(20), '--lable', 'x'], {
      MONGODB_URI: 'mongodb://127.0.0.1:9/none',
    });
    await expect(refused).rejects.toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'admin: token:list has no flag --lable; its flags: --wallet, --json, --help\n',
    });
  });
});
