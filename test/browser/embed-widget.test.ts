import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { injectWallet, launchChromium } from '../../scripts/services/chromium';
import { type EmbedHostPage, hostPageHtml, startEmbedHostPage } from '../../scripts/services/embed-host';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { type EmbedSetup, HOSTILE, seedEmbed } from '../support/embed';
import { TestPayer } from '../support/payer';
import { startTestStack, type TestStack } from '../support/stack';

/**
 * The widget in headless Chromium: a host page on one loopback origin includes the loader, a
 * wallet (an EIP-1193 provider backed by a viem account) signs in once, a chat message runs the
 * workflow, a product call is paid. A second origin, not allowed, cannot frame it.
 */
describe('embed widget in a real browser', () => {
  let stack: TestStack;
  let s: EmbedSetup;
  let allowed: EmbedHostPage;
  let denied: EmbedHostPage;
  let bare: EmbedHostPage;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const account = privateKeyToAccount(generatePrivateKey());
  const wallet = account.address.toLowerCase();
  let walletCalls: string[] = [];
  const widgetRequests: string[] = [];

  /** The frame of the widget whose iframe src contains `part`, once it has loaded the page script. */
  async function widgetFrame(p: Page, part: string): Promise<Frame> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const f = p.frames().find((x) => x.url().includes(part));
      if (
        f &&
        (await f
          .locator('#widget[data-ready]')
          .count()
          .catch(() => 0))
      )
        return f;
      if (Date.now() > deadline)
        throw new Error(
          `no widget frame ${part}; frames: ${p
            .frames()
            .map((x) => x.url())
            .join(', ')}`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const launcher = (p: Page, ref: string) => p.locator(`[data-agent-commerce-embed="${ref}"] button.launcher`);

  beforeAll(async () => {
    stack = await startTestStack({ workers: true, queues: ['runs', 'node-template', 'settlements'] });
    allowed = await startEmbedHostPage('');
    denied = await startEmbedHostPage('');
    bare = await startEmbedHostPage('');
    s = await seedEmbed(stack.db, [allowed.origin]);
    const base = stack.server.mainUrl;
    allowed.setPage(
      hostPageHtml(base, [
        { workflow: s.workflowId, label: 'Chat' },
        { product: s.productId, bundle: s.bundleId, label: 'Echo' },
        { bundle: s.bundleId, label: 'All' },
      ]),
    );
    denied.setPage(hostPageHtml(base, [{ workflow: s.workflowId, label: 'Chat' }]));
    bare.setPage(hostPageHtml(base, []));
    await new LedgerStore(stack.db.models).grant({ wallet, credits: 50, creditType: 'admin_grant' });

    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    // Playwright's 30 s per step is short for Chromium, the API and the workers sharing a loaded machine.
    context.setDefaultTimeout(60_000);
    walletCalls = (await injectWallet(context, account)).calls;
    page = await context.newPage();
    page.on('request', (r) => widgetRequests.push(r.url()));
  });
  afterAll(async () => {
    await browser?.close();
    await allowed?.stop();
    await denied?.stop();
    await bare?.stop();
    await stack?.stop();
  });

  it('adds one launcher per tag without touching the host page; opens the chat, signs in with the wallet, shows the reply as text', async () => {
    // The same host page without the loader: what the page's own globals and styles are.
    const plain = await context.newPage();
    await plain.goto(bare.url);
    const bareGlobals: string[] = await plain.evaluate('Object.keys(window)');
    await plain.close();

    await page.goto(allowed.url);
    await launcher(page, s.workflowId).waitFor();
    expect(await page.locator('[data-agent-commerce-embed] button.launcher').count()).toBe(3);
    const globals: string[] = await page.evaluate('Object.keys(window)');
    expect(globals.filter((k) => !bareGlobals.includes(k))).toEqual(['AgentCommerceEmbed']);
    // The host's own elements keep their styles; the loader put no style or link into the host document.
    expect(await page.evaluate("getComputedStyle(document.getElementById('host-button')).fontFamily")).toBe(
      'Georgia, serif',
    );
    expect(await page.evaluate("document.querySelectorAll('style, link').length")).toBe(1);
    const boxes = await Promise.all(
      [s.workflowId, s.productId, s.bundleId].map((r) => launcher(page, r).boundingBox()),
    );
    expect(new Set(boxes.map((b) => Math.round(b!.x))).size).toBe(3);

    await launcher(page, s.workflowId).click();
    const chat = await widgetFrame(page, `/embed/${s.workflowId}`);
    expect(await chat.locator('h1').textContent()).toBe(`Helper ${HOSTILE}`);
    expect(await chat.locator('#send').isDisabled()).toBe(true);

    await chat.locator('#wallet-sign-in').click();
    await chat.locator('#who', { hasText: 'Signed in as' }).waitFor();
    expect(await chat.locator('#balance').textContent()).toBe('Balance: 50 credits');
    expect(walletCalls.filter((m) => m === 'personal_sign')).toHaveLength(1);

    // Record what the reply bubble shows over time: a status first, then the answer.
    await chat.evaluate(`
      window.__seen = [];
      new MutationObserver(() => {
        const bot = document.querySelector('#log li.bot');
        const text = bot ? bot.textContent : '';
        if (bot && window.__seen[window.__seen.length - 1] !== text) window.__seen.push(text);
      }).observe(document.getElementById('log'), { subtree: true, childList: true, characterData: true, attributes: true });
    `);
    await chat.locator('#message').fill(`hi ${HOSTILE}`);
    await chat.locator('#send').click();
    const reply = chat.locator('#log li.bot[data-status="completed"]');
    await reply.waitFor({ timeout: 60_000 });
    expect(await reply.textContent()).toBe(`You said: hi ${HOSTILE} ${HOSTILE}`);
    expect(await chat.locator('#log li.user').textContent()).toBe(`hi ${HOSTILE}`);
    const seen: string[] = await chat.evaluate('window.__seen');
    expect(seen[0]).toMatch(/^(Sending|Queued|Working)…$/);
    expect(seen[seen.length - 1]).toBe(`You said: hi ${HOSTILE} ${HOSTILE}`);

    // Nothing hostile became markup or ran, in the frame or on the host page.
    expect(await chat.locator('img').count()).toBe(0);
    expect(await chat.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(widgetRequests.filter((u) => /\/x$/.test(u))).toEqual([]);
  });

  it('shows the product form with its price and charges exactly that price, without another wallet prompt', async () => {
    const ledger = new LedgerStore(stack.db.models);
    const before = (await ledger.balance(wallet)).balance;
    await launcher(page, s.productId).click();
    const product = await widgetFrame(page, `/embed/product/${s.productId}`);
    expect(await product.locator('h1').textContent()).toBe(`Echo ${HOSTILE}`);
    expect(await product.locator('header .desc').textContent()).toBe(`Echoes text ${HOSTILE}`);
    expect(await product.locator('.price').textContent()).toBe(
      `Price: ${s.price} credits per call, paid from your balance.`,
    );
    // Signed in already (same bundle, same tab): the pay button is live.
    await product.locator('#who', { hasText: 'Signed in as' }).waitFor();
    await product.locator(`#f-echo-text`).fill(`pay ${HOSTILE}`);
    await product.locator('#f-echo-count').fill('3');
    await product.locator('button.pay').click();
    const result = product.locator('.result', { hasText: 'Charged' });
    await result.waitFor();
    const text = (await result.textContent())!;
    expect(text.split('\n')[0]).toBe(`Charged ${s.price} credits.`);
    expect(JSON.parse(text.slice(text.indexOf('\n') + 1))).toEqual({ echo: { text: `pay ${HOSTILE}`, count: 3 } });
    expect(await product.locator('#balance').textContent()).toBe(`Balance: ${before - s.price} credits`);

    expect((await ledger.balance(wallet)).balance).toBe(before - s.price);
    const history = await ledger.history(wallet, 10);
    const purchases = history.transactions.filter((t) => t.transaction_type === 'purchase');
    expect(purchases.map((t) => Math.abs(t.amount_credits))).toEqual([s.price]);
    expect(walletCalls.filter((m) => m === 'personal_sign')).toHaveLength(1);
    expect(await product.locator('img').count()).toBe(0);
    expect(await product.evaluate('window.__pwned')).toBeUndefined();
  });

  it('lets the user pick from a bundle, hostile names shown as text', async () => {
    await launcher(page, s.bundleId).click();
    const picker = await widgetFrame(page, `/embed/bundle/${s.bundleId}`);
    expect(await picker.locator('h1').textContent()).toBe(`Bundle ${HOSTILE}`);
    expect(await picker.locator('a.pick .name').allTextContents()).toEqual([`Helper ${HOSTILE}`, `Echo ${HOSTILE}`]);
    await picker.locator('a.pick').first().click();
    await picker.waitForURL((u) => u.pathname === `/embed/${s.workflowId}`);
    await picker.locator('#who', { hasText: 'Signed in as' }).waitFor();
    expect(await picker.locator('img').count()).toBe(0);
    expect(await picker.evaluate('window.__pwned')).toBeUndefined();
  });

  it('offers to buy credits when the balance is short of the price, paid over x402 by the same wallet', async () => {
    const payer = new TestPayer();
    await payer.fund(10);
    const usdcBefore = await payer.balance();
    const buyer = await browser.newContext();
    await injectWallet(buyer, payer.account, '0x14a34'); // the local chain, 84532
    const p = await buyer.newPage();
    await p.goto(allowed.url);
    await launcher(p, s.productId).click();
    const product = await widgetFrame(p, `/embed/product/${s.productId}`);
    await product.locator('#wallet-sign-in').click();
    await product.locator('#balance', { hasText: 'Balance: 0 credits' }).waitFor();
    await product.locator('#buy').click();
    await product.locator('#balance', { hasText: 'Balance: 500 credits' }).waitFor({ timeout: 90_000 });
    expect(await product.locator('#buy-row').isHidden()).toBe(true);
    const ledger = new LedgerStore(stack.db.models);
    const buyerWallet = payer.account.address.toLowerCase();
    expect((await ledger.balance(buyerWallet)).balance).toBe(500);
    expect(usdcBefore - (await payer.balance())).toBe(5_000_000n);

    await product.locator('#f-echo-text').fill('after buying');
    await product.locator('button.pay').click();
    await product.locator('.result', { hasText: 'Charged' }).waitFor();
    expect((await ledger.balance(buyerWallet)).balance).toBe(500 - s.price);
    await buyer.close();
  });

  it('cannot be framed by a page on an origin the bundle does not allow', async () => {
    const other = await context.newPage();
    const refusals: string[] = [];
    other.on('console', (m) => refusals.push(m.text()));
    await other.goto(denied.url);
    await launcher(other, s.workflowId).click();
    await other.locator('[data-agent-commerce-embed] iframe').waitFor({ state: 'attached' });
    const deadline = Date.now() + 30_000;
    while (!refusals.some((t) => t.includes('frame-ancestors')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(refusals.some((t) => t.includes('frame-ancestors'))).toBe(true);
    for (const f of other.frames())
      expect(
        await f
          .locator('#widget')
          .count()
          .catch(() => 0),
      ).toBe(0);
    await other.close();
  });
});
