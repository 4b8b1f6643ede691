import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { ids } from '../../shared/platform/ids/index';
import { startPostgres } from './postgres';
import { freePort, portOpen, startProcess } from './process';
import type { RunningTemporal } from './temporal';
import { TEMPORAL_SERVER_BIN, TEMPORAL_SQL_TOOL_BIN } from './temporal-build';

/**
 * Built on demand from tools/temporal-server (scripts/services/temporal-build.ts); bootstrap does
 * not build it. This one-process shape is bench/temporal-floor.ts's variant `server-pg`; the
 * multi-host cluster is scripts/services/temporal-cluster.ts.
 */
const SERVER = TEMPORAL_SERVER_BIN;
const SQL_TOOL = TEMPORAL_SQL_TOOL_BIN;

export function temporalServerBuilt(): boolean {
  return fs.existsSync(SERVER) && fs.existsSync(SQL_TOOL);
}

/**
 * go.temporal.io/server's own binary (all four services in one process, one history shard like
 * the dev server) on a throwaway PostgreSQL of its own, schema from the embedded SQL files, the
 * `default` namespace registered. No Web UI: that is a separate Go module (temporalio/ui-server).
 */
/** Settings in the server's dynamic-config file form, each for every namespace and queue. */
export function dynamicConfigYaml(settings: Record<string, unknown>): string {
  return Object.entries(settings)
    .map(([k, v]) => `${k}:\n  - value: ${JSON.stringify(v)}\n`)
    .join('');
}

export async function startTemporalOnPostgres(dynamicConfig: Record<string, unknown> = {}): Promise<RunningTemporal> {
  const pg = await startPostgres({ profile: 'throwaway' });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'temporal-server-'));
  const stopAll = async () => {
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await setupTemporalSchema(pg.port);
    const ports = {
      frontend: await freePort(),
      http: await freePort(),
      history: await freePort(),
      matching: await freePort(),
      worker: await freePort(),
    };
    const membership = {
      frontend: await freePort(),
      history: await freePort(),
      matching: await freePort(),
      worker: await freePort(),
    };
    const dcFile = path.join(dir, 'dynamic-config.yaml');
    await writeFile(dcFile, dynamicConfigYaml(dynamicConfig));
    const config = temporalServerConfig({
      pgPort: pg.port,
      numHistoryShards: 1,
      services: Object.fromEntries(
        (['frontend', 'history', 'matching', 'worker'] as const).map((name) => [
          name,
          { grpc: ports[name], membership: membership[name], ...(name === 'frontend' ? { http: ports.http } : {}) },
        ]),
      ),
      dynamicConfigFile: dcFile,
      frontendAddress: `127.0.0.1:${ports.frontend}`,
    });
    // JSON is YAML: the server reads this file with a YAML parser.
    const configFile = path.join(dir, 'config.yaml');
    await writeFile(configFile, JSON.stringify(config, null, 2));
    const proc = await startProcess({
      name: 'temporal-server',
      command: SERVER,
      args: ['--config-file', configFile, '--allow-no-auth', 'start'],
      ready: () => portOpen(ports.frontend),
      timeoutMs: 60000,
    });
    const address = `127.0.0.1:${ports.frontend}`;
    const stop = async () => {
      await proc.stop();
      await stopAll();
    };
    try {
      await registerDefaultNamespace(address);
    } catch (err) {
      await stop();
      throw err;
    }
    return { address, uiUrl: '', stop };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

export type TemporalService = 'frontend' | 'history' | 'matching' | 'worker';

export interface ServicePorts {
  grpc: number;
  membership: number;
  http?: number;
}

/** The server's config for one host: its own ports for its own service; everything else is shared. */
export function temporalServerConfig(o: {
  pgPort: number;
  numHistoryShards: number;
  services: Partial<Record<TemporalService, ServicePorts>>;
  dynamicConfigFile: string;
  frontendAddress: string;
  logFile?: string;
}) {
  const store = (db: string, conns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName: db,
      connectAddr: `127.0.0.1:${o.pgPort}`,
      connectProtocol: 'tcp',
      user: 'postgres',
      password: '',
      maxConns: conns,
      maxIdleConns: conns,
      maxConnLifetime: '1h',
    },
  });
  return {
    log: o.logFile ? { stdout: false, level: 'warn', outputFile: o.logFile } : { stdout: true, level: 'error' },
    persistence: {
      defaultStore: 'pg',
      visibilityStore: 'pg-visibility',
      numHistoryShards: o.numHistoryShards,
      datastores: { pg: store('temporal', 20), 'pg-visibility': store('temporal_visibility', 4) },
    },
    // Every host announces 127.0.0.1 and finds its peers through the store's membership table.
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    services: Object.fromEntries(
      Object.entries(o.services).map(([name, p]) => [
        name,
        {
          rpc: {
            grpcPort: p.grpc,
            membershipPort: p.membership,
            bindOnIP: '127.0.0.1',
            ...(p.http ? { httpPort: p.http } : {}),
          },
        },
      ]),
    ),
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: o.frontendAddress },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
    dynamicConfigClient: { filepath: o.dynamicConfigFile, pollInterval: '10s' },
  };
}

/** Temporal's two databases and the SQL tool's schema of each (docker-compose.yml's setup names the same). */
export const TEMPORAL_SCHEMAS = {
  temporal: 'postgresql/v12/temporal',
  temporal_visibility: 'postgresql/v12/visibility',
};

/**
 * Temporal's schema (persistence and visibility) from the SQL tool's embedded files, on a
 * PostgreSQL server. On a data folder that has it already, it only checks: the databases exist,
 * the schema is at its newest version.
 */
export async function setupTemporalSchema(pgPort: number): Promise<void> {
  const sql = (db: string, ...args: string[]) =>
    promisify(execFile)(SQL_TOOL, [
      '--plugin',
      'postgres12',
      '--ep',
      '127.0.0.1',
      '-p',
      String(pgPort),
      '-u',
      'postgres',
      '--db',
      db,
      ...args,
    ]);
  for (const [db, schema] of Object.entries(TEMPORAL_SCHEMAS)) {
    const fresh = await sql(db, 'create-database').then(
      () => true,
      (err: Error) => {
        if (/already exists/i.test(err.message)) return false;
        throw err;
      },
    );
    if (fresh) await sql(db, 'setup-schema', '-v', '0.0');
    await sql(db, 'update-schema', '--schema-name', schema);
  }
}

/** Registers `default` and waits until the frontend's namespace cache knows it (it refreshes on a timer). */
export async function registerDefaultNamespace(address: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const deadline = Date.now() + 60000;
    for (;;) {
      try {
        await connection.workflowService.registerNamespace({
          namespace: 'default',
          workflowExecutionRetentionPeriod: msToTs('1 day'),
        });
        break;
      } catch (err) {
        if (/already exists/i.test((err as Error).message)) break;
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    for (;;) {
      try {
        // A start is what the namespace cache gates; the probe workflow is left to its 1 s timeout.
        await connection.workflowService.startWorkflowExecution({
          namespace: 'default',
          workflowId: `namespace-probe-${Date.now()}`,
          workflowType: { name: 'probe' },
          taskQueue: { name: 'namespace-probe' },
          workflowExecutionTimeout: msToTs('1s'),
          requestId: ids.request(),
        });
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  } finally {
    await connection.close();
  }
}
