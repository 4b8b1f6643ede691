/**
 * `make dev`: the whole service on embedded defaults: MongoDB-wire store, Temporal with its
 * Web UI, the API (both hosts), the two worker groups (`trusted` and `untrusted`, each its own
 * process; docker-compose.yml starts the same two, test/unit/node-registry.test.ts checks), and
 * demo data. Ctrl-C stops all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { processSecret } from '../shared/platform/ids/index';
import { hostPageHtml, startEmbedHostPage } from './services/embed-host';
import { startFerretDb } from './services/ferretdb';
import { startLocalChain } from './services/local-chain';
import { CACHE, ROOT } from './services/paths';
import { ManagedProcess, portOpen, startProcess } from './services/process';
import { startTemporalDev } from './services/temporal';

const PIDS = path.join(CACHE, 'dev.pids');
/** The running dev stack's addresses, for local tools in another terminal (scripts/dev-env.ts reads it). */
const DEV_ENV = path.join(CACHE, 'dev.env');
const PORT = Number(process.env.PORT ?? 8080);
const API_PORT = Number(process.env.API_PORT ?? 8081);
const EMBED_DEMO_PORT = Number(process.env.EMBED_DEMO_PORT ?? 8092);
const EMBED_DEMO_FILE = path.join(CACHE, 'embed-demo.json');

/** A dev run killed hard leaves its process groups behind; end them so ports are free again. */
function killLeftovers(): void {
  if (!fs.existsSync(PIDS)) return;
  for (const pid of fs.readFileSync(PIDS, 'utf8').split('\n').filter(Boolean).map(Number)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  fs.rmSync(PIDS);
}

function remember(p: { child: { pid?: number } }): void {
  fs.appendFileSync(PIDS, `${p.child.pid}\n`);
}

async function main(): Promise<void> {
  fs.mkdirSync(CACHE, { recursive: true });
  killLeftovers();
  const stops: Array<() => Promise<void>> = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping…');
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    fs.rmSync(PIDS, { force: true });
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  try {
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'development' };
    if (!env.MONGODB_URI) {
      const mongo = await startFerretDb({ port: 27017, dataDir: path.join(CACHE, 'dev-pg') });
      stops.push(mongo.stop);
      env.MONGODB_URI = mongo.uri;
    }
    let uiUrl = process.env.TEMPORAL_UI_URL ?? '(external Temporal: see its own UI)';
    if (!env.TEMPORAL_ADDRESS) {
      const temporal = await startTemporalDev({
        port: 7233,
        uiPort: 8233,
        dbFile: path.join(CACHE, 'dev-temporal.db'),
      });
      stops.push(temporal.stop);
      env.TEMPORAL_ADDRESS = temporal.address;
      uiUrl = temporal.uiUrl.replace('127.0.0.1', 'localhost');
      env.TEMPORAL_UI_URL ??= uiUrl;
    }

    let chainInfo = '(external: X402_* variables)';
    if (!env.X402_PAY_TO) {
      const chain = await startLocalChain({ port: 8545 });
      stops.push(chain.stop);
      Object.assign(env, chain.env);
      chainInfo = `${chain.rpcUrl} (chain id 84532), token USDC at ${chain.tokenAddress}`;
    }

    // The demo vendor: its own process and secret; the seed stores the secret (encrypted) in the catalog.
    const vendorRpc = env[`X402_RPC_URL_84532`];
    const vendorEnv: NodeJS.ProcessEnv = {};
    if (vendorRpc) {
      const vendorPort = Number(process.env.DEMO_VENDOR_PORT ?? 8090);
      vendorEnv.DEMO_VENDOR_SECRET = process.env.DEMO_VENDOR_SECRET ?? processSecret();
      const vendor = await startProcess({
        name: 'demo-vendor',
        command: path.join(ROOT, 'node_modules/.bin/tsx'),
        args: ['scripts/demo-vendor.ts'],
        cwd: ROOT,
        env: { ...process.env, ...vendorEnv, DEMO_VENDOR_PORT: String(vendorPort), DEMO_VENDOR_RPC_URL: vendorRpc },
        inheritOutput: true,
        ready: () => portOpen(vendorPort),
      });
      remember(vendor);
      stops.push(vendor.stop);
      env.DEMO_VENDOR_URL = `http://127.0.0.1:${vendorPort}`;
    }

    const shared = Object.fromEntries(
      Object.entries(env).filter(([k]) => /^(MONGODB_URI|TEMPORAL_ADDRESS|X402_(?!SETTLEMENT_PRIVATE_KEY))/.test(k)),
    );
    fs.writeFileSync(
      DEV_ENV,
      Object.entries(shared)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n') + '\n',
    );
    stops.push(async () => fs.rmSync(DEV_ENV, { force: true }));

    const tsx = path.join(ROOT, 'node_modules/.bin/tsx');
    const worker: ManagedProcess = await startProcess({
      name: 'worker',
      command: tsx,
      args: ['workers/main.ts', '--queues', 'trusted'],
      cwd: ROOT,
      env,
      inheritOutput: true,
      ready: async () => true,
    });
    remember(worker);
    stops.push(worker.stop);
    // Wallet-authored graphs' nodes in a process of their own, as in docker-compose.yml.
    const untrustedWorker: ManagedProcess = await startProcess({
      name: 'untrusted worker',
      command: tsx,
      args: ['workers/main.ts', '--queues', 'untrusted'],
      cwd: ROOT,
      env,
      inheritOutput: true,
      ready: async () => true,
    });
    remember(untrustedWorker);
    stops.push(untrustedWorker.stop);
    const api: ManagedProcess = await startProcess({
      name: 'api',
      command: tsx,
      args: ['api/main.ts'],
      cwd: ROOT,
      env,
      inheritOutput: true,
      ready: async () => (await portOpen(PORT)) && (await portOpen(API_PORT)),
      timeoutMs: 60000,
    });
    remember(api);
    stops.push(api.stop);

    // The widget's demo host page: a stand-in for a customer's site on another origin (port).
    const hostPage = await startEmbedHostPage('<!doctype html><p>seeding…</p>', EMBED_DEMO_PORT, 'localhost');
    stops.push(hostPage.stop, async () => fs.rmSync(EMBED_DEMO_FILE, { force: true }));
    const seeded = await startProcess({
      name: 'seed',
      command: tsx,
      args: ['scripts/seed-demo.ts'],
      cwd: ROOT,
      env: { ...env, ...vendorEnv, EMBED_DEMO_ORIGIN: hostPage.origin, EMBED_DEMO_FILE },
      inheritOutput: true,
      ready: async () => true,
    });
    await new Promise<void>((resolve, reject) =>
      seeded.child.exitCode !== null
        ? resolve()
        : seeded.child.once('exit', (code) =>
            code === 0 ? resolve() : reject(new Error(`demo seed failed (${code})`)),
          ),
    );

    const mainUrl = `http://localhost:${PORT}`;
    const demo = JSON.parse(fs.readFileSync(EMBED_DEMO_FILE, 'utf8')) as {
      bundleId: string;
      workflowId: string;
      productId: string;
    };
    hostPage.setPage(
      hostPageHtml(
        mainUrl,
        [
          { workflow: demo.workflowId, bundle: demo.bundleId, label: 'Help desk' },
          { product: demo.productId, bundle: demo.bundleId, label: 'Echo tool' },
          { bundle: demo.bundleId, label: 'All tools' },
        ],
        'Embed demo page',
      ),
    );

    console.log(`
  agent commerce service is up
    main host (agents):      http://localhost:${PORT}/api/external/...
    bearer host:             http://localhost:${API_PORT}/health
    operator's console:      http://localhost:${API_PORT}/console (sign in with the wak_ key printed above)
    MCP server:              http://localhost:${PORT}/mcp (agent-commerce mcp config --token act_… prints a client config)
    Temporal Web UI:         ${uiUrl}
    MongoDB (wire):          ${env.MONGODB_URI}
    local chain:             ${chainInfo}
    demo vendor:             ${env.DEMO_VENDOR_URL ?? '(not started: no local chain)'} (tools: GET http://localhost:${PORT}/api/external/tools)
      fund a wallet:         npm run admin -- chain:mint --to 0xYourWallet --usd 20
    widget test page:        ${hostPage.url} (three launchers; sign in with a wallet or the printed act_ token)
  Ctrl-C stops everything.
`);
  } catch (err) {
    console.error((err as Error).message);
    await stopAll(1);
  }
}

void main();
