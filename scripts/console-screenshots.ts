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
import { createRepositories } from '../shared/composition/root';
import { createDb, type Db } from '../shared/composition/store';
import { type AppConfig, parseConfig } from '../shared/platform/config/index';
import { createTemporal } from '../temporal/connection';
import { seedConsoleDemo } from './seed-console-demo';
import { launchChromium } from './services/chromium';
import { startFerretDb } from './services/ferretdb';
import { ROOT } from './services/paths';

const OUT = path.join(ROOT, 'docs/console');

/** An operator key, two catalog products with prices, three x402 payment records and a payer's ledger, for the operator's pages. */
async function seedOperatorView(config: AppConfig, db: Db): Promise<{ operatorKey: string; wallet: string }> {
  const repos = createRepositories({ config, db });
  const { operatorKey } = await repos.operatorKeys.create({ label: 'screenshots' });
  const runner = { kind: 'http', url: 'https://vendor.example/call', method: 'POST', timeout_ms: 5000 } as const;
  for (const [slug, actions] of [
    [
      'weather',
      [
        ['forecast', 7, '0.07'],
        ['alerts', 3, null],
      ],
    ],
    ['translate', [['text', 12, '0.12']]],
  ] as const) {
    await repos.tools.createProduct({ slug, name: slug, display_name: slug[0]!.toUpperCase() + slug.slice(1) });
    for (const [action, credits, usd] of actions)
      await repos.tools.addAction(slug, { slug: action, credits, x402_usd: usd, runner });
  }
  const asset = `0x${'a'.repeat(40)}`;
  const payTo = `0x${'b'.repeat(40)}`;
  const statuses = ['completed', 'completed', 'failed'] as const;
  for (const [i, status] of statuses.entries()) {
    const payer = `0x${String(i + 1).repeat(40)}`;
    const nonce = `0x${String(i + 1).padStart(64, '0')}`;
    const at = new Date(Date.now() - (statuses.length - i) * 3_600_000);
    await repos.payments.insert({
      _id: `eip155:84532:${asset}:${payer}:${nonce}`,
      purpose_key: `demo:${nonce}`,
      purpose: { kind: 'credit_purchase', wallet: payer, credits: 100 * (i + 1) },
      status,
      network: 'eip155:84532',
      chain_id: 84532,
      asset,
      token_symbol: 'USDC',
      payer,
      pay_to: payTo,
      amount_base_units: String(1_000_000 * (i + 1)),
      amount_usd: i + 1,
      resource_url: 'http://localhost:8080/api/external/credits/purchase',
      authorization: { from: payer, to: payTo, value: '0', validAfter: '0', validBefore: '0', nonce },
      signature: '0x',
      payload_json: '{}',
      requirements_json: '{}',
      ...(status === 'failed'
        ? { error_code: 'authorization_used' }
        : {
            tx_hash: `0x${String(i + 7)
              .repeat(64)
              .slice(0, 64)}`,
            block_number: String(1000 + i),
            settled_at: at,
          }),
      created_at: at,
      updated_at: at,
    });
  }
  // The first payer's credits, as its purchase granted them, and two paid calls.
  const wallet = `0x${'1'.repeat(40)}`;
  await repos.ledger.grant({ wallet, grantId: 'demo-operator-1', credits: 100, creditType: 'x402_purchase' });
  for (const [n, credits] of [
    [1, 7],
    [2, 12],
  ] as const)
    await repos.ledger.spend({ wallet, requestId: `demo-call-${n}`, credits });
  return { operatorKey, wallet };
}

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

    // The service operator's view: a key as `admin operator-key:create` mints it, a small catalog
    // and a few x402 payments (records only: no chain runs here).
    const operator = await seedOperatorView(config, db);
    await page.locator('#sign-out').click();
    await page.locator('#api_key').fill(operator.operatorKey);
    await page.locator('#sign-in button[type=submit]').click();
    await page.locator('#catalog').waitFor();
    await page.screenshot({ path: path.join(OUT, 'operator-catalog.png'), fullPage: true });
    await page.goto(url('/console/operator/settlements'));
    await page.screenshot({ path: path.join(OUT, 'operator-settlements.png'), fullPage: true });
    await page.goto(url(`/console/operator/ledger?account=${operator.wallet}`));
    await page.screenshot({ path: path.join(OUT, 'operator-ledger.png'), fullPage: true });
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
