/**
 * Screenshots of the open widget for docs/embed.md (docs/embed/{workflow,product,bundle}.png):
 * its own store, Temporal and worker on free ports, the API in-process, the `make dev` embed
 * demo seeded, a loopback host page, headless Chromium with an injected wallet.
 *   node_modules/.bin/tsx scripts/embed-screenshots.ts
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startServer } from '../api/http/server';
import { createDb } from '../shared/composition/store';
import { LedgerStore } from '../shared/credits/ledger-store';
import { parseConfig } from '../shared/platform/config/index';
import { createTemporal, ensureSearchAttributes } from '../temporal/connection';
import { seedEmbedDemo } from './seed-embed-demo';
import { injectWallet, launchChromium } from './services/chromium';
import { hostPageHtml, startEmbedHostPage } from './services/embed-host';
import { startFerretDb } from './services/ferretdb';
import { ROOT } from './services/paths';
import { startProcess } from './services/process';
import { startTemporalDev } from './services/temporal';

const OUT = path.join(ROOT, 'docs/embed');

async function main(): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  try {
    const [mongo, temporalDev] = await Promise.all([startFerretDb(), startTemporalDev()]);
    stops.push(mongo.stop, temporalDev.stop);
    const env = {
      ...process.env,
      MONGODB_URI: mongo.uri,
      TEMPORAL_ADDRESS: temporalDev.address,
      MONGODB_DB_NAME: 'embed_screenshots',
      TEMPORAL_TASK_QUEUE_PREFIX: 'shots-',
      LOG_LEVEL: 'warn',
    };
    const config = parseConfig(env);
    const db = createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName });
    await db.ready(20_000);
    const temporal = createTemporal(config);
    stops.unshift(async () => {
      await db.close();
      await temporal.close();
    });
    await ensureSearchAttributes(temporal);
    const worker = await startProcess({
      name: 'worker',
      command: path.join(ROOT, 'node_modules/.bin/tsx'),
      args: ['workers/main.ts', '--queues', 'runs,node-template,node-condition'],
      cwd: ROOT,
      env,
      ready: async () => true,
    });
    stops.unshift(worker.stop);
    const server = await startServer({ config, db, temporal }, { main: 0, api: 0 });
    stops.unshift(server.stop);

    const host = await startEmbedHostPage('');
    stops.unshift(host.stop);
    const account = privateKeyToAccount(generatePrivateKey());
    const demo = await seedEmbedDemo(config, db, { origins: [host.origin], wallet: account.address.toLowerCase() });
    await new LedgerStore(db.models).grant({
      wallet: account.address.toLowerCase(),
      credits: 100,
      creditType: 'admin_grant',
    });
    host.setPage(
      hostPageHtml(
        server.mainUrl,
        [
          { workflow: demo.workflowId, bundle: demo.bundleId, label: 'Help desk' },
          { product: demo.productId, bundle: demo.bundleId, label: 'Echo tool' },
          { bundle: demo.bundleId, label: 'All tools' },
        ],
        'Embed demo page',
      ),
    );

    const browser = await launchChromium();
    stops.unshift(() => browser.close());
    const context = await browser.newContext({ viewport: { width: 1000, height: 720 }, deviceScaleFactor: 1 });
    await injectWallet(context, account);
    const page = await context.newPage();
    await page.goto(host.url);
    const launcher = (ref: string) => page.locator(`[data-agent-commerce-embed="${ref}"] button.launcher`);
    const frame = async (part: string) => {
      await page.locator(`[data-agent-commerce-embed] iframe[src*="${part}"]`).waitFor({ state: 'attached' });
      for (;;) {
        const f = page.frames().find((x) => x.url().includes(part));
        if (f && (await f.locator('#widget[data-ready]').count())) return f;
        await page.waitForTimeout(100);
      }
    };
    mkdirSync(OUT, { recursive: true });

    await launcher(demo.workflowId).click();
    const chat = await frame(`/embed/${demo.workflowId}`);
    await chat.locator('#wallet-sign-in').click();
    await chat.locator('#who', { hasText: 'Signed in as' }).waitFor();
    for (const text of ['Can I get a demo?', 'Great widget, thanks']) {
      await chat.locator('#message').fill(text);
      await chat.locator('#send').click();
      await chat
        .locator('#log li.bot[data-status="completed"]', { hasText: text })
        .waitFor({ timeout: 60_000 })
        .catch(async (err) => {
          throw new Error(
            `no reply to "${text}": the chat shows ${JSON.stringify(await chat.locator('#log').textContent())} (${(err as Error).message})`,
          );
        });
    }
    await page.screenshot({ path: path.join(OUT, 'workflow.png') });
    await launcher(demo.workflowId).click();

    await launcher(demo.productId).click();
    const product = await frame(`/embed/product/${demo.productId}`);
    await product.locator('#who', { hasText: 'Signed in as' }).waitFor();
    await product.locator('#f-echo-text').fill('Hello from the widget');
    await product.locator('button.pay').click();
    await product.locator('.result', { hasText: 'Charged' }).waitFor();
    await product.locator('.result').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(OUT, 'product.png') });
    await launcher(demo.productId).click();

    await launcher(demo.bundleId).click();
    await frame(`/embed/bundle/${demo.bundleId}`);
    await page.screenshot({ path: path.join(OUT, 'bundle.png') });
    console.log(`wrote ${['workflow', 'product', 'bundle'].map((n) => `docs/embed/${n}.png`).join(', ')}`);
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
