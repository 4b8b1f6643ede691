import { seedDemoCatalog } from '../../scripts/services/demo-vendor/catalog';
import { signToolInvoke } from '../../sdk/agent-client';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { DEV_ACCOUNT_INDEX, devAccount } from '../../shared/payments/chain/dev-accounts';
import { ToolRepository } from '../../shared/tools/repository';
import { TestAgent } from '../support/agent';
import { startTestDemoVendor } from '../support/demo-vendor';
import { http } from '../support/http';
import { startTestStack, TestStack } from '../support/stack';

describe('the demo vendor behind the catalog: chain and text tools paid with credits', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startTestDemoVendor>>;
  let agent: TestAgent;
  let ledger: LedgerStore;
  let repo: ToolRepository;

  beforeAll(async () => {
    stack = await startTestStack();
    vendor = await startTestDemoVendor();
    repo = new ToolRepository(stack.db.models);
    ledger = new LedgerStore(stack.db.models);
    await seedDemoCatalog(repo, {
      vendorUrl: vendor.url,
      vendorSecret: vendor.secret,
      secretKey: stack.config.tools.secretsKey,
    });
    // Seeding twice is harmless.
    await seedDemoCatalog(repo, {
      vendorUrl: vendor.url,
      vendorSecret: vendor.secret,
      secretKey: stack.config.tools.secretsKey,
    });
    agent = new TestAgent(stack.server.mainUrl);
    await agent.startSession();
    await ledger.grant({ wallet: agent.wallet, credits: 50, creditType: 'admin_grant' });
  });
  afterAll(async () => {
    await vendor.stop();
    await stack.stop();
  });

  const invoke = async (product: string, action: string, parameters: Record<string, unknown>) => {
    const env = await signToolInvoke({
      account: agent.account,
      sessionNonce: agent.sessionNonce,
      productSlug: product,
      actionSlug: action,
      parameters,
    });
    return http('POST', `${stack.server.mainUrl}/api/external/tools/${product}/actions/${action}/invoke`, {
      body: { ...env, parameters },
    });
  };

  it('reads ERC-20 metadata, a token balance and block facts from the local chain', async () => {
    const meta = await invoke('chain-reader', 'erc20-metadata', { token: vendor.tokenAddress });
    expect(meta.status).toBe(200);
    expect(meta.body.response).toMatchObject({ chain_id: 84532, name: 'USDC', symbol: 'USDC', decimals: 6 });
    const holder = devAccount(DEV_ACCOUNT_INDEX.payer).address;
    const bal = await invoke('chain-reader', 'token-balance', { token: vendor.tokenAddress, address: holder });
    expect(bal.status).toBe(200);
    expect(bal.body.response).toMatchObject({ symbol: 'USDC', decimals: 6, address: holder });
    expect(BigInt(bal.body.response.balance_base_units)).toBeGreaterThanOrEqual(0n);
    const block = await invoke('chain-reader', 'block-facts', {});
    expect(block.status).toBe(200);
    expect(block.body.response).toMatchObject({
      chain_id: 84532,
      number: expect.any(Number),
      gas_limit: expect.any(String),
    });
    expect((await ledger.balance(agent.wallet)).balance).toBe(50 - 1 - 2 - 1);
  });

  it('extracts links and counts words', async () => {
    const links = await invoke('text-tools', 'extract-links', {
      text: 'See [docs](https://example.com/docs) and https://viem.sh, also <a href="https://x.org/a">X</a>.',
    });
    expect(links.status).toBe(200);
    expect(links.body.response.count).toBe(3);
    expect(links.body.response.links[0]).toEqual({
      url: 'https://example.com/docs',
      text: 'docs',
      host: 'example.com',
    });
    const stats = await invoke('text-tools', 'stats', { text: 'One two three. Four five!', words_per_minute: 60 });
    expect(stats.body.response).toMatchObject({ words: 5, sentences: 2, reading_time_seconds: 5 });
  });

  it('a vendor refusal comes back in details without charging; a wrong stored secret is a vendor_error, the secret never shown', async () => {
    const before = (await ledger.balance(agent.wallet)).balance;
    const notToken = await invoke('chain-reader', 'erc20-metadata', { token: '0x' + '00'.repeat(19) + '01' });
    expect(notToken.status).toBe(502);
    expect(notToken.body).toMatchObject({
      success: false,
      code: 'vendor_error',
      details: { vendor_status: 400, vendor_body: { error: expect.stringContaining('not a contract') } },
    });
    await repo.setSecret('demo-vendor', 'wrong-secret-wrong-secret', stack.config.tools.secretsKey);
    await new Promise((r) => setTimeout(r, 5_100)); // the API's secret cache
    const denied = await invoke('text-tools', 'stats', { text: 'a' });
    expect(denied.body).toMatchObject({ code: 'vendor_error', details: { vendor_status: 401 } });
    expect(denied.text).not.toContain('wrong-secret');
    expect((await ledger.balance(agent.wallet)).balance).toBe(before);
    // The vendor itself refuses a caller without its secret.
    const direct = await http('POST', `${vendor.url}/tools/text.stats`, { body: { parameters: { text: 'a' } } });
    expect(direct.status).toBe(401);
  });
});
