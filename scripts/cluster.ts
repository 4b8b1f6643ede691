/**
 * `make cluster`: the service on the production shape of Temporal, every part a process of its
 * own on this machine. Temporal (go.temporal.io/server, built once into .cache/bin) as two
 * frontends, two history hosts, two matching hosts and the internal worker service on a
 * PostgreSQL of its own, a TCP balancer in front of the frontends, its Web UI; FerretDB on
 * PostgreSQL for our store; the local chain; two API processes behind a balancer of their own
 * (the main host and the bearer host each one address, as behind a load balancer); the worker
 * groups as compose scales them (`trusted` ×2, `untrusted`). State in .cache/cluster (a second
 * run finds it); Ctrl-C stops all. docs/operations.md, "Running Temporal as a cluster".
 */
import fs from 'node:fs';
import path from 'node:path';
import { startFerretDb } from './services/ferretdb';
import { startLocalChain } from './services/local-chain';
import { CACHE, ROOT } from './services/paths';
import { freePort, type ManagedProcess, portOpen, startProcess } from './services/process';
import { startTcpBalancer } from './services/tcp-balancer';
import { ensureTemporalBinaries } from './services/temporal-build';
import { CLUSTER_SHAPE, startTemporalCluster } from './services/temporal-cluster';

const STATE = path.join(CACHE, 'cluster');
const PORT = Number(process.env.PORT ?? 8080);
const API_PORT = Number(process.env.API_PORT ?? 8081);
const TEMPORAL_PORT = Number(process.env.TEMPORAL_PORT ?? 7233);
const UI_PORT = Number(process.env.TEMPORAL_UI_PORT ?? 8233);

async function main(): Promise<void> {
  const stops: Array<() => Promise<unknown>> = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping…');
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
  const log = (s: string) => console.log(`[cluster] ${s}`);

  try {
    const t = Date.now();
    const { ui } = await ensureTemporalBinaries(log);
    fs.mkdirSync(STATE, { recursive: true });
    const temporal = await startTemporalCluster({
      dataDir: path.join(STATE, 'temporal'),
      balancerPort: TEMPORAL_PORT,
      uiPort: UI_PORT,
      log,
    });
    stops.push(temporal.stop);
    log(`Temporal cluster up in ${Math.round((Date.now() - t) / 1000)} s`);

    const env: NodeJS.ProcessEnv = {
      // The balancers' addresses, not one API process's own: the URLs answers carry (status_url,
      // callbacks' links) must reach whichever process is up.
      PUBLIC_BASE_URL: `http://localhost:${PORT}`,
      PUBLIC_API_URL: `http://localhost:${API_PORT}`,
      ...process.env,
      NODE_ENV: 'development',
      TEMPORAL_ADDRESS: temporal.address,
    };
    if (!env.MONGODB_URI) {
      const mongo = await startFerretDb({ port: 27017, dataDir: path.join(STATE, 'store-pg') });
      stops.push(mongo.stop);
      env.MONGODB_URI = mongo.uri;
    }
    if (!env.X402_PAY_TO) {
      const chain = await startLocalChain({ port: 8545 });
      stops.push(chain.stop);
      Object.assign(env, chain.env);
    }

    const tsx = path.join(ROOT, 'node_modules/.bin/tsx');
    const start = async (name: string, args: string[], extra: NodeJS.ProcessEnv, ready: () => Promise<boolean>) => {
      const p: ManagedProcess = await startProcess({
        name,
        command: tsx,
        args,
        cwd: ROOT,
        env: { ...env, ...extra },
        inheritOutput: true,
        ready,
        timeoutMs: 120_000,
      });
      stops.push(p.stop);
    };
    for (const [name, queues] of [
      ['worker trusted 1', 'trusted'],
      ['worker trusted 2', 'trusted'],
      ['worker untrusted', 'untrusted'],
    ]) {
      await start(name!, ['workers/main.ts', '--queues', queues!], {}, async () => true);
    }
    const apis: Array<{ main: number; bearer: number }> = [];
    for (let i = 1; i <= 2; i++) {
      const ports = { main: await freePort(), bearer: await freePort() };
      await start(
        `api ${i}`,
        ['api/main.ts'],
        { PORT: String(ports.main), API_PORT: String(ports.bearer) },
        async () => (await portOpen(ports.main)) && (await portOpen(ports.bearer)),
      );
      apis.push(ports);
    }
    const mainBalancer = await startTcpBalancer(
      apis.map((a) => a.main),
      { port: PORT },
    );
    stops.push(mainBalancer.close);
    const bearerBalancer = await startTcpBalancer(
      apis.map((a) => a.bearer),
      { port: API_PORT },
    );
    stops.push(bearerBalancer.close);

    const { hosts } = CLUSTER_SHAPE;
    console.log(`
  agent commerce service is up on a Temporal cluster
    main host (agents):      http://localhost:${PORT}/api/external/...  (api 1 :${apis[0]!.main}, api 2 :${apis[1]!.main})
    bearer host:             http://localhost:${API_PORT}/health
    Temporal (balancer):     ${temporal.address} → frontends ${temporal.frontends.join(', ')}
    Temporal hosts:          ${hosts.frontend} frontend, ${hosts.history} history (${CLUSTER_SHAPE.numHistoryShards} shards), ${hosts.matching} matching, ${hosts.worker} worker; logs in ${temporal.logDir}
    Temporal Web UI:         ${ui ? temporal.uiUrl.replace('127.0.0.1', 'localhost') : "(not built: see the message above; make dev has the dev server's UI)"}
    Temporal's PostgreSQL:   127.0.0.1:${temporal.postgres.port}
    MongoDB (wire):          ${env.MONGODB_URI}
  Ctrl-C stops everything.
`);
  } catch (err) {
    console.error((err as Error).message);
    await stopAll(1);
  }
}

void main();
