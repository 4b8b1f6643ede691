import { signToolInvoke } from '../../sdk/agent-client';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { adminCli } from '../support/admin-cli';
import { TestAgent } from '../support/agent';
import { http } from '../support/http';
import { startTestStack, TestStack } from '../support/stack';
import { startScriptedVendor } from '../support/vendor';

async function admin(args: string[], env: NodeJS.ProcessEnv = {}): Promise<any> {
  const stdout = await adminCli([...args, '--json'], env);
  expect(stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(stdout);
}

describe('catalog operator CLI against the real store', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  beforeAll(async () => {
    stack = await startTestStack();
    vendor = await startScriptedVendor((call) =>
      call.headers['x-api-key'] === 'cli-secret-value'
        ? { status: 200, body: { result: { ok: true } } }
        : { status: 401, body: { error: 'no' } },
    );
  });
  afterAll(async () => {
    await vendor.stop();
    await stack.stop();
  });

  it('creates a product, stores a secret, adds an action, lists and updates; the API then sells it', async () => {
    const created = await admin([
      'product:create',
      '--slug',
      'cli-tool',
      '--name',
      'cli_tool',
      '--description',
      'Made by the CLI',
      '--categories',
      'ops,Test',
      '--extra',
      '{"tier":"gold"}',
    ]);
    expect(created).toMatchObject({
      slug: 'cli-tool',
      categories: ['ops', 'test'],
      active: true,
      private: false,
      extra: { tier: 'gold' },
      actions: [],
    });
    expect(
      await admin(['secret:set', '--name', 'cli-key', '--from-env', 'CLI_SECRET'], { CLI_SECRET: 'cli-secret-value' }),
    ).toEqual({ name: 'cli-key', created: true });
    const withAction = await admin([
      'action:add',
      '--product',
      created.product_id,
      '--slug',
      'ping',
      '--credits',
      '2',
      '--x402-usd',
      '0.02',
      '--url',
      `${vendor.url}/ping`,
      '--secret',
      'cli-key',
      '--auth-header',
      'X-Api-Key',
      '--auth-scheme',
      '',
      '--schema',
      '{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}',
    ]);
    expect(withAction.actions).toEqual([
      expect.objectContaining({
        slug: 'ping',
        credits: 2,
        x402_usd: '0.02',
        runner: expect.objectContaining({ kind: 'http', secret: 'cli-key' }),
      }),
    ]);
    expect(JSON.stringify(await admin(['secret:list']))).not.toContain('cli-secret-value');

    const agent = new TestAgent(stack.server.mainUrl);
    await agent.startSession();
    await new LedgerStore(stack.db.models).grant({ wallet: agent.wallet, credits: 5, creditType: 'admin_grant' });
    const env = await signToolInvoke({
      account: agent.account,
      sessionNonce: agent.sessionNonce,
      productSlug: 'cli-tool',
      actionSlug: 'ping',
      parameters: { n: 1 },
    });
    const res = await http('POST', `${stack.server.mainUrl}/api/external/tools/cli-tool/actions/ping/invoke`, {
      body: { ...env, parameters: { n: 1 } },
    });
    expect(res.body).toMatchObject({ success: true, response: { ok: true }, credits_charged: 2 });

    const listed = await admin(['product:list', '--query', 'cli']);
    expect(listed.products.map((p: any) => p.slug)).toEqual(['cli-tool']);
    await admin(['product:update', '--product', 'cli-tool', '--private', 'true']);
    expect((await admin(['product:list', '--query', 'cli'])).total_count).toBe(0);
    expect((await admin(['product:list', '--query', 'cli', '--all'])).total_count).toBe(1);

    expect(await admin(['wallet-budget:set', '--wallet', agent.wallet, '--per-call', '1'])).toMatchObject({
      per_call_credits: 1,
      daily_credits: null,
      set_by: 'operator',
    });
    const env2 = await signToolInvoke({
      account: agent.account,
      sessionNonce: agent.sessionNonce,
      productSlug: 'cli-tool',
      actionSlug: 'ping',
      parameters: { n: 2 },
    });
    const over = await http('POST', `${stack.server.mainUrl}/api/external/tools/cli-tool/actions/ping/invoke`, {
      body: { ...env2, parameters: { n: 2 } },
    });
    expect(over.body).toMatchObject({
      code: 'budget_exceeded',
      details: { limit: 'per_call', per_call_credits: 1, credits_required: 2 },
    });
  }, 300_000);

  it('refuses bad definitions with a message and a non-zero exit', async () => {
    await expect(admin(['product:create', '--slug', 'Bad Slug', '--name', 'x'])).rejects.toMatchObject({ code: 2 });
    await expect(
      admin(['action:add', '--product', 'nope', '--slug', 'a', '--credits', '1', '--builtin', 'echo']),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('no product nope') });
    await expect(
      admin(['product:create', '--slug', 'dup', '--name', 'dup']).then(() =>
        admin(['product:create', '--slug', 'dup', '--name', 'dup']),
      ),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('already exists'),
    });
  }, 300_000);
});
