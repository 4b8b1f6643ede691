/**
 * Screenshots of the operator's console for docs/console.md (docs/console/*.png): its own store
 * on a free port, the API in-process, the console demo seeded (seed-console-demo.ts), headless
 * Chromium signing in with the printed key. The pages read only the store, so no Temporal server
 * or worker is started (the client is lazy and never called).
 *   node_modules/.bin/tsx scripts/console-screenshots.ts
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startServer } from '../api/http/server';
import { createDb } from '../shared/composition/store';
import { parseConfig } from '../shared/platform/config/index';
import { createTemporal } from '../temporal/connection';
import { seedConsoleDemo } from './seed-console-demo';
import { launchChromium } from './services/chromium';
import { startFerretDb } from './services/ferretdb';
import { ROOT } from './services/paths';

const OUT = path.join(ROOT, 'docs/console');

async function main(): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  try {
    const mongo = await startFerretDb();
    stops.push(mongo.stop);
    const env = {
      ...process.env,
      MONGODB_URI: mongo.uri,
      MONGODB_DB_NAME: 'console_screenshots',
      TEMPORAL_ADDRESS: '127.0.0.1:1',
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
    const server = await startServer({ config, db, temporal }, { main: 0, api: 0 });
    stops.unshift(server.stop);
    const demo = await seedConsoleDemo(config, db, { workspaceName: 'Demo workspace' });

    const browser = await launchChromium();
    stops.unshift(() => browser.close());
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const url = (p: string) => `${server.apiUrl}${p}`;
    mkdirSync(OUT, { recursive: true });

    await page.goto(url('/console/sign-in'));
    await page.screenshot({ path: path.join(OUT, 'sign-in.png') });
    await page.locator('#api_key').fill(demo.apiKey);
    await page.locator('#sign-in button[type=submit]').click();
    await page.locator('#credits-left').waitFor();
    await page.screenshot({ path: path.join(OUT, 'overview.png'), fullPage: true });

    await page.goto(url('/console/runs?status=failed'));
    await page.screenshot({ path: path.join(OUT, 'runs.png') });
    await page.goto(url('/console/runs'));
    const first = page.locator('#runs tbody tr[data-run] a').first();
    await first.click();
    await page.locator('#run-facts').waitFor();
    await page.screenshot({ path: path.join(OUT, 'run.png'), fullPage: true });

    await page.goto(url('/console/budgets'));
    await page.screenshot({ path: path.join(OUT, 'budgets.png'), fullPage: true });
    await page.goto(url('/console/workflows'));
    await page.screenshot({ path: path.join(OUT, 'workflows.png') });
    await page.goto(url('/console/workflows/wf_demo_greeter'));
    await page.locator('#graph').waitFor();
    await page.screenshot({ path: path.join(OUT, 'workflow.png'), fullPage: true });
    await page.goto(url('/console/callbacks'));
    await page.screenshot({ path: path.join(OUT, 'callbacks.png'), fullPage: true });
    await page.goto(url('/console/approvals'));
    await page.screenshot({ path: path.join(OUT, 'approvals.png') });
    console.log(`console screenshots in ${path.relative(ROOT, OUT)}/`);
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
