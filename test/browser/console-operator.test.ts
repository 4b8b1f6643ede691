import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type AdminContext, Flags } from '../../scripts/admin/command';
import { consoleCommands } from '../../scripts/admin/console';
import { launchChromium } from '../../scripts/services/chromium';
import { buildRoot } from '../../shared/composition/root';
import { sha256Hex } from '../../shared/platform/ids/index';
import { lazyEngines } from '../../temporal/engines';
import { consoleFetch, consoleWorkspace, formTokenOf, Jar, paymentRecord } from '../support/console';
import { startTestStack, type TestStack } from '../support/stack';

const PAYER = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';
const OTHER = '0x1111111111111111111111111111111111111111';
const TX = (n: number) => `0x${n.toString(16).padStart(64, 'c')}`;

/**
 * The service operator's view in headless Chromium against the real API and store: a key minted
 * by the admin CLI's command signs in to the catalog with its prices, the x402 settlements with
 * their status and transaction, and a wallet's ledger, each paged; a workspace's session is
 * refused on those pages and an operator's on the workspace's; a revoked key is refused.
 */
describe("the service operator's console in a real browser", () => {
  let stack: TestStack;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let ctx: AdminContext;
  let ws: Awaited<ReturnType<typeof consoleWorkspace>>;
  let operatorKey: string;
  let operatorKeyId: string;
  let productId: string;
  const url = (p: string) => `${stack.server.apiUrl}${p}`;
  const cli = (name: string, ...argv: string[]) => {
    const command = consoleCommands.find((c) => c.name === name)!;
    return command.run(ctx, new Flags(argv, command.flags, name)) as Promise<Record<string, unknown>>;
  };

  beforeAll(async () => {
    stack = await startTestStack({ env: { AUTH_SESSION_LIMIT_PER_CLIENT: '50' } });
    ctx = {
      config: stack.config,
      db: stack.db,
      temporal: () => stack.temporal,
      root: buildRoot({ config: stack.config, db: stack.db, engines: lazyEngines(() => stack.temporal) }),
    };
    const { repos } = ctx.root;
    ws = await consoleWorkspace(stack.db, 'Acme agents');

    const weather = await repos.tools.createProduct({ slug: 'weather', name: 'weather', display_name: 'Weather' });
    productId = weather.id;
    await repos.tools.addAction('weather', {
      slug: 'forecast',
      credits: 7,
      x402_usd: '0.07',
      runner: { kind: 'http', url: 'https://vendor.example/forecast', method: 'POST', timeout_ms: 5000 },
    });
    await repos.tools.insertProducts(
      ['alpha', 'beta', 'gamma'].map((n) => ({ slug: n, name: n, active: n !== 'beta', private: n === 'gamma' })),
    );

    const t0 = Date.now() - 3_600_000;
    for (const [i, status] of (['settled', 'completed', 'failed', 'completed'] as const).entries())
      await repos.payments.insert(
        paymentRecord({
          payer: i === 2 ? OTHER : PAYER,
          nonce: i + 1,
          status,
          createdAt: new Date(t0 + i * 60_000),
          txHash: status === 'failed' ? undefined : TX(i + 1),
          credits: 100 * (i + 1),
        }),
      );
    for (const n of [1, 2, 3]) {
      await repos.ledger.grant({
        wallet: PAYER.toLowerCase(),
        grantId: `console-op-${n}`,
        credits: 100 * n,
        creditType: 'x402_purchase',
      });
    }
    await repos.ledger.spend({ wallet: PAYER.toLowerCase(), requestId: 'console-op-spend', credits: 50 });

    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    context.setDefaultTimeout(60_000);
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('the CLI mints an operator key shown once and stored only as its hash', async () => {
    const minted = await cli('operator-key:create', '--label', 'on call');
    operatorKey = minted.operator_key as string;
    operatorKeyId = minted.operator_key_id as string;
    expect(operatorKey).toMatch(/^opk_[A-Za-z0-9_-]{43}$/);
    expect(operatorKeyId).toMatch(/^opkid_[0-9a-f]{16}$/);
    const stored = await stack.db.models.consoleOperatorKeys.find().lean().exec();
    expect(stored.map((d) => d._id)).toEqual([sha256Hex(operatorKey)]);
    expect(JSON.stringify(stored)).not.toContain(operatorKey);
    const listed = (await cli('operator-key:list')) as unknown as Array<Record<string, unknown>>;
    expect(listed).toEqual([expect.objectContaining({ key_id: operatorKeyId, label: 'on call', revoked_at: null })]);
    expect(JSON.stringify(listed)).not.toContain(sha256Hex(operatorKey));
  });

  it('signs in with the operator key and sees the whole catalog with its prices, paged by name', async () => {
    await page.goto(url('/console/operator'));
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await page.locator('#api_key').fill(operatorKey);
    await page.locator('#sign-in button[type=submit]').click();
    await page.locator('#catalog').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/operator');
    expect(await page.locator('#workspace').textContent()).toContain('Service operator on call');
    const price = page.locator(`tr[data-product="${productId}"] li[data-action="forecast"]`);
    expect(await price.locator('.credits').textContent()).toBe('7 credits');
    expect(await price.locator('.x402').textContent()).toBe('$0.07 x402');
    // Hidden and inactive products are the operator's to see too.
    expect(await page.locator('#catalog tr[data-product]').count()).toBe(4);
    expect(await page.locator('#catalog').textContent()).toMatch(/inactive/);
    expect(await page.content()).not.toContain(operatorKey);
    expect(await page.evaluate('document.cookie')).toBe('');
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'console_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    const seen: string[] = [];
    await page.goto(url('/console/operator?limit=3'));
    for (;;) {
      seen.push(
        ...(await page.locator('#catalog tr[data-product]').evaluateAll((rows) => rows.map((r) => r.textContent!))),
      );
      if ((await page.locator('#next-page').count()) === 0) break;
      await page.locator('#next-page').click();
      await page.waitForLoadState();
    }
    expect(seen.map((t) => t.split(' ')[0])).toEqual(['alpha', 'beta', 'gamma', 'Weather']);
  });

  it('sees the x402 settlements with their status and transaction, filtered by status and paged', async () => {
    await page.locator('nav a[href="/console/operator/settlements"]').click();
    await page.locator('#settlements').waitFor();
    const rows = page.locator('#settlements tr[data-payment]');
    expect(await rows.count()).toBe(4);
    // Newest first: the last inserted (completed, tx 4) on top.
    expect(await rows.first().locator('.tx code').textContent()).toBe(TX(4));
    const settled = page.locator('#settlements tr[data-payment]', { hasText: 'settled' });
    expect(await settled.locator('.tx code').textContent()).toBe(TX(1));
    await page.locator('#f-status').selectOption('failed');
    await page.locator('#apply').click();
    await page.waitForURL(/status=failed/);
    expect(await rows.count()).toBe(1);
    expect(await rows.first().locator('.tx').textContent()).toBe('—');
    expect(await rows.first().textContent()).toContain(OTHER);

    await page.goto(url('/console/operator/settlements?limit=3'));
    const first = await rows.evaluateAll((r) => r.map((x) => x.getAttribute('data-payment')));
    await page.locator('#next-page').click();
    await page.waitForLoadState();
    const second = await rows.evaluateAll((r) => r.map((x) => x.getAttribute('data-payment')));
    expect([first.length, second.length]).toEqual([3, 1]);
    expect(new Set([...first, ...second]).size).toBe(4);
    expect(await page.locator('#next-page').count()).toBe(0);
  });

  it("looks up a wallet's ledger by its address, newest first, paged", async () => {
    await page.goto(url('/console/operator/ledger'));
    await page.locator('#f-account').fill(PAYER);
    await page.locator('#look-up').click();
    await page.locator('#ledger').waitFor();
    expect(await page.locator('#ledger-balance').textContent()).toBe('550 credits');
    const seqs = () =>
      page.locator('#ledger tr[data-seq]').evaluateAll((r) => r.map((x) => x.getAttribute('data-seq')));
    expect(await seqs()).toEqual(['4', '3', '2', '1']);
    expect(await page.locator('#ledger tr[data-seq="4"]').textContent()).toContain('purchase');

    await page.goto(url(`/console/operator/ledger?account=${PAYER}&limit=3`));
    expect(await seqs()).toEqual(['4', '3', '2']);
    await page.locator('#next-page').click();
    await page.waitForLoadState();
    expect(await seqs()).toEqual(['1']);
    expect(await page.locator('#next-page').count()).toBe(0);
    // The payer's link on the settlements page leads here too.
    await page.goto(url('/console/operator/settlements?status=settled'));
    await page.locator(`#settlements a[href="/console/operator/ledger?account=${PAYER.toLowerCase()}"]`).click();
    await page.locator('#ledger').waitFor();
    expect(await page.locator('#ledger-balance').textContent()).toBe('550 credits');
  });

  it("refuses the operator's session on a workspace's pages and actions", async () => {
    for (const p of ['/console', '/console/runs', '/console/budgets', '/console/approvals']) {
      const res = await page.goto(url(p));
      expect({ page: p, status: res!.status() }).toEqual({ page: p, status: 403 });
    }
    expect(await page.locator('#error').textContent()).toContain('workspace');
    expect(await page.content()).not.toContain('Acme agents');
    const jar = new Jar();
    jar.cookies.set('console_session', (await context.cookies()).find((c) => c.name === 'console_session')!.value);
    const form = await consoleFetch(jar, url('/console/operator'));
    const post = await consoleFetch(jar, url(`/console/groups/${ws.groupId}/tokens`), {
      form: { _form: formTokenOf(form.text), label: 'operator' },
    });
    expect(post.status).toBe(403);
    expect(await stack.db.models.agentGroupTokens.countDocuments({ group_id: ws.groupId })).toBe(1);
  });

  it("refuses a workspace's session on the operator's pages", async () => {
    const other = await browser.newContext();
    const p = await other.newPage();
    await p.goto(url('/console/sign-in'));
    await p.locator('#api_key').fill(ws.apiKey);
    await p.locator('#sign-in button[type=submit]').click();
    await p.locator('#credits-left').waitFor();
    for (const path of [
      '/console/operator',
      '/console/operator/settlements',
      `/console/operator/ledger?account=${PAYER}`,
    ]) {
      const res = await p.goto(url(path));
      expect({ path, status: res!.status() }).toEqual({ path, status: 403 });
      expect(await p.locator('#error').textContent()).toContain('operator');
      expect(await p.content()).not.toContain(TX(1));
      expect(await p.content()).not.toContain('forecast');
    }
    await other.close();
  });

  it('a revoked operator key ends its session at the next request and signs in no more', async () => {
    expect(await cli('operator-key:revoke', '--key-id', operatorKeyId)).toEqual({ revoked: true });
    expect(await cli('operator-key:revoke', '--key-id', operatorKeyId)).toEqual({ revoked: false });
    await page.goto(url('/console/operator/settlements'));
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await page.locator('#api_key').fill(operatorKey);
    await page.locator('#sign-in button[type=submit]').click();
    await page.locator('#error').waitFor();
    expect(await page.locator('#error').textContent()).toContain('not a live');
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    const res = await page.goto(url('/console/operator'));
    expect(new URL(res!.url()).pathname).toBe('/console/sign-in');
  });
});
