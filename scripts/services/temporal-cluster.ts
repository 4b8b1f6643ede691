import fs from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { ensureSearchAttributes } from '../../temporal/connection';
import { ROOT } from './paths';
import { type PostgresProfile, type RunningPostgres, startPostgres } from './postgres';
import { freePort, type ManagedProcess, portOpen, startProcess } from './process';
import { type RunningBalancer, startTcpBalancer } from './tcp-balancer';
import type { RunningTemporal } from './temporal';
import { TEMPORAL_SERVER_BIN, TEMPORAL_UI_BIN } from './temporal-build';
import {
  dynamicConfigYaml,
  registerDefaultNamespace,
  type ServicePorts,
  setupTemporalSchema,
  temporalServerConfig,
  type TemporalService,
} from './temporal-server';

/**
 * The production shape on one machine: every service in processes of its own, two of each that
 * carries load, so a host can die without its service going away. History shards are the unit
 * history work moves by when a host dies (a shard is owned by one host at a time); 16 over two
 * hosts gives each eight to hand over. The count is fixed for a cluster's life (it is in the
 * store), so docs/operations.md says how to size it for production. One internal worker host:
 * it runs Temporal's own system workflows (schedules, batch operations), which survive its
 * restart like any workflow.
 */
export const CLUSTER_SHAPE = {
  numHistoryShards: 16,
  hosts: { frontend: 2, history: 2, matching: 2, worker: 1 } satisfies Record<TemporalService, number>,
};

/**
 * The dynamic config every host reads: the file compose mounts into its server, so the cluster
 * tested and the one deployed run the same settings (tools/temporal-server/dynamic-config.yaml
 * gives each one's reason). The dev server's other flags do not apply here: its one partition
 * per task queue suits one matching host, and a real server already reads search attributes
 * from its cache.
 */
export const CLUSTER_DYNAMIC_CONFIG = path.join(ROOT, 'tools/temporal-server/dynamic-config.yaml');

export interface ClusterHost {
  name: string;
  service: TemporalService;
  grpcPort: number;
  pid(): number | undefined;
  /** SIGKILL to its process; resolves once it is gone. */
  kill(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP / SIGCONT: alive to the kernel, silent to its peers. */
  pause(): void;
  resume(): void;
}

export interface RunningCluster extends RunningTemporal {
  /** Each frontend's own address; `address` is the balancer in front of them. */
  frontends: string[];
  hosts: ClusterHost[];
  balancer: RunningBalancer;
  postgres: RunningPostgres;
  logDir: string;
  /** Where each host's config file is: every host's command line names it. */
  configDir: string;
}

/**
 * go.temporal.io/server as a cluster of separate processes (CLUSTER_SHAPE) on a PostgreSQL of
 * its own (the durable profile: Temporal's state is what a restart must find), a TCP balancer in
 * front of the two frontends, and the Web UI when its server was built. With `dataDir` the
 * state outlives the run (make cluster); without, it is a temporary folder removed on stop.
 */
export async function startTemporalCluster(
  opts: {
    dataDir?: string;
    logDir?: string;
    uiPort?: number;
    balancerPort?: number;
    log?: (s: string) => void;
    /** Settings added to CLUSTER_DYNAMIC_CONFIG, for a benchmark that tries one (never make cluster). */
    extraDynamicConfig?: Record<string, unknown>;
    /** `throwaway` (no fsync) only for a benchmark that measures what durability costs. */
    postgresProfile?: PostgresProfile;
  } = {},
): Promise<RunningCluster> {
  const log = opts.log ?? (() => undefined);
  const tmp = opts.dataDir ? undefined : await mkdtemp(path.join(os.tmpdir(), 'temporal-cluster-'));
  const root = opts.dataDir ?? tmp!;
  // Each host's log; a caller's own folder outlives a temporary cluster (for the post-mortem).
  const logDir = opts.logDir ?? path.join(root, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const stops: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    if (tmp) await rm(tmp, { recursive: true, force: true });
  };
  try {
    // The postgres user owns the data folder (PostgreSQL refuses root); the parent must let it in.
    fs.chmodSync(root, 0o755);
    const postgres = await startPostgres({
      dataDir: path.join(root, 'pg'),
      profile: opts.postgresProfile ?? 'durable',
    });
    stops.push(() => postgres.stop());
    log(`Temporal's PostgreSQL on ${postgres.port}: schema`);
    await setupTemporalSchema(postgres.port);

    const plan: Array<{ service: TemporalService; index: number; ports: ServicePorts }> = [];
    for (const [service, n] of Object.entries(CLUSTER_SHAPE.hosts) as Array<[TemporalService, number]>) {
      for (let i = 1; i <= n; i++) {
        plan.push({
          service,
          index: i,
          ports: {
            grpc: await freePort(),
            membership: await freePort(),
            ...(service === 'frontend' ? { http: await freePort() } : {}),
          },
        });
      }
    }
    let dynamicConfigFile = CLUSTER_DYNAMIC_CONFIG;
    if (opts.extraDynamicConfig) {
      dynamicConfigFile = path.join(root, 'dynamic-config.yaml');
      await writeFile(
        dynamicConfigFile,
        fs.readFileSync(CLUSTER_DYNAMIC_CONFIG, 'utf8') + dynamicConfigYaml(opts.extraDynamicConfig),
      );
    }
    const frontendPorts = plan.filter((h) => h.service === 'frontend').map((h) => h.ports.grpc);
    const hosts: Host[] = [];
    for (const h of plan) {
      const name = `${h.service}-${h.index}`;
      const configFile = path.join(root, `${name}.yaml`);
      const config = temporalServerConfig({
        pgPort: postgres.port,
        numHistoryShards: CLUSTER_SHAPE.numHistoryShards,
        // Every service is named (the membership monitor tracks the rings of those in the config);
        // only this host's own entry matters for its ports, the others are the first host's.
        services: {
          ...Object.fromEntries(plan.filter((p) => p.index === 1).map((p) => [p.service, p.ports])),
          [h.service]: h.ports,
        },
        dynamicConfigFile,
        frontendAddress: `127.0.0.1:${frontendPorts[0]}`,
        logFile: path.join(logDir, `${name}.log`),
      });
      // JSON is YAML: the server reads this file with a YAML parser.
      await writeFile(configFile, JSON.stringify(config, null, 2));
      hosts.push(new Host(name, h.service, h.ports.grpc, configFile));
    }
    stops.push(() => Promise.all(hosts.map((h) => h.stop())));
    log(`starting ${hosts.map((h) => h.name).join(', ')}`);
    // On a fresh store every host writes the cluster's metadata row as it starts, and two doing it at
    // once make one fail ("failed to initialize current cluster metadata"): one host first, then
    // the others, who find the row.
    await hosts[0].start();
    await Promise.all(hosts.slice(1).map((h) => h.start()));

    const balancer = await startTcpBalancer(frontendPorts, { port: opts.balancerPort });
    stops.push(() => balancer.close());
    const address = `127.0.0.1:${balancer.port}`;
    await registerDefaultNamespace(address);
    const connection = await Connection.connect({ address });
    try {
      await ensureSearchAttributes({ connection, namespace: 'default' });
    } finally {
      await connection.close();
    }

    let uiUrl = '';
    if (fs.existsSync(TEMPORAL_UI_BIN)) {
      const ui = await startUi(root, address, opts.uiPort ?? (await freePort()));
      stops.push(() => ui.stop());
      uiUrl = ui.url;
    }
    return {
      address,
      uiUrl,
      frontends: frontendPorts.map((p) => `127.0.0.1:${p}`),
      hosts,
      balancer,
      postgres,
      logDir,
      configDir: root,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

class Host implements ClusterHost {
  private proc?: ManagedProcess;
  private starting?: Promise<void>;
  constructor(
    readonly name: string,
    readonly service: TemporalService,
    readonly grpcPort: number,
    private readonly configFile: string,
  ) {}

  pid(): number | undefined {
    return this.proc?.child.pid;
  }

  async start(): Promise<void> {
    this.starting = startProcess({
      name: `temporal ${this.name}`,
      command: TEMPORAL_SERVER_BIN,
      args: ['--config-file', this.configFile, '--allow-no-auth', 'start', '--service', this.service],
      ready: () => portOpen(this.grpcPort),
      timeoutMs: 120_000,
    }).then((proc) => {
      this.proc = proc;
    });
    await this.starting;
  }

  async kill(): Promise<void> {
    const child = this.proc?.child;
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    this.signal('SIGCONT');
    this.signal('SIGKILL');
    await gone;
  }

  pause(): void {
    this.signal('SIGSTOP');
  }

  resume(): void {
    this.signal('SIGCONT');
  }

  async stop(): Promise<void> {
    // A host still starting when another's failure stops the cluster: its process exists only once
    // the start settles, and stopping before that would leave it running.
    await this.starting?.catch(() => undefined);
    // A paused process cannot act on SIGTERM.
    this.signal('SIGCONT');
    await this.proc?.stop();
  }

  private signal(s: NodeJS.Signals): void {
    const pid = this.proc?.child.pid;
    if (!pid) return;
    try {
      process.kill(-pid, s);
    } catch {
      /* already gone */
    }
  }
}

/** temporalio/ui-server with a config of our own (its embedded assets are the UI). */
async function startUi(root: string, address: string, port: number): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = path.join(root, 'ui/config');
  fs.mkdirSync(dir, { recursive: true });
  await writeFile(
    path.join(dir, 'cluster.yaml'),
    [
      `temporalGrpcAddress: ${address}`,
      `port: ${port}`,
      // Loopback only: the UI has no authentication of its own.
      'host: 127.0.0.1',
      'enableUi: true',
      'defaultNamespace: default',
      // No outbound calls from an operator's browser or the server (the machines may be offline).
      'disableNewsFetch: true',
      'notifyOnNewVersion: false',
      'cors:',
      '  cookieInsecure: true',
      '',
    ].join('\n'),
  );
  const proc = await startProcess({
    name: 'temporal ui',
    command: TEMPORAL_UI_BIN,
    args: ['--root', path.join(root, 'ui'), '--env', 'cluster', 'start'],
    ready: () => portOpen(port),
    timeoutMs: 60_000,
  });
  return { url: `http://127.0.0.1:${port}`, stop: proc.stop };
}
