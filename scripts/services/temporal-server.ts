import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { ids } from '../../shared/platform/ids/index';
import { CACHE } from './paths';
import { startPostgres } from './postgres';
import { freePort, portOpen, startProcess } from './process';
import type { RunningTemporal } from './temporal';

/**
 * Built by hand from tools/temporal-server (docs/decisions.md); bootstrap does not build it. Used
 * by bench/temporal-floor.ts (variant `server-pg`) only: it starts, registers `default` and runs
 * the bench's workflows.
 */
const SERVER = path.join(CACHE, 'bin/temporal-server');
const SQL_TOOL = path.join(CACHE, 'bin/temporal-sql-tool');

export function temporalServerBuilt(): boolean {
  return fs.existsSync(SERVER) && fs.existsSync(SQL_TOOL);
}

/**
 * go.temporal.io/server's own binary (all four services in one process, one history shard like
 * the dev server) on a throwaway PostgreSQL of its own, schema from the embedded SQL files, the
 * `default` namespace registered. No Web UI: that is a separate Go module (temporalio/ui-server).
 */
export async function startTemporalOnPostgres(dynamicConfig: Record<string, unknown> = {}): Promise<RunningTemporal> {
  const pg = await startPostgres({ profile: 'throwaway' });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'temporal-server-'));
  const stopAll = async () => {
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const sql = (db: string, ...args: string[]) =>
      promisify(execFile)(SQL_TOOL, [
        '--plugin',
        'postgres12',
        '--ep',
        '127.0.0.1',
        '-p',
        String(pg.port),
        '-u',
        'postgres',
        '--db',
        db,
        ...args,
      ]);
    for (const [db, schema] of [
      ['temporal', 'postgresql/v12/temporal'],
      ['temporal_visibility', 'postgresql/v12/visibility'],
    ]) {
      await sql(db, 'create-database');
      await sql(db, 'setup-schema', '-v', '0.0');
      await sql(db, 'update-schema', '--schema-name', schema);
    }
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
    const store = (db: string, conns: number) => ({
      sql: {
        pluginName: 'postgres12',
        databaseName: db,
        connectAddr: `127.0.0.1:${pg.port}`,
        connectProtocol: 'tcp',
        user: 'postgres',
        password: '',
        maxConns: conns,
        maxIdleConns: conns,
        maxConnLifetime: '1h',
      },
    });
    const service = (name: keyof typeof membership) => ({
      rpc: {
        grpcPort: ports[name],
        membershipPort: membership[name],
        bindOnIP: '127.0.0.1',
        ...(name === 'frontend' ? { httpPort: ports.http } : {}),
      },
    });
    const dcFile = path.join(dir, 'dynamic-config.yaml');
    await writeFile(
      dcFile,
      Object.entries(dynamicConfig)
        .map(([k, v]) => `${k}:\n  - value: ${JSON.stringify(v)}\n`)
        .join(''),
    );
    const config = {
      log: { stdout: true, level: 'error' },
      persistence: {
        defaultStore: 'pg',
        visibilityStore: 'pg-visibility',
        numHistoryShards: 1,
        datastores: { pg: store('temporal', 20), 'pg-visibility': store('temporal_visibility', 2) },
      },
      global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
      services: {
        frontend: service('frontend'),
        history: service('history'),
        matching: service('matching'),
        worker: service('worker'),
      },
      clusterMetadata: {
        enableGlobalNamespace: false,
        failoverVersionIncrement: 10,
        masterClusterName: 'active',
        currentClusterName: 'active',
        clusterInformation: {
          active: {
            enabled: true,
            initialFailoverVersion: 1,
            rpcName: 'frontend',
            rpcAddress: `127.0.0.1:${ports.frontend}`,
          },
        },
      },
      dcRedirectionPolicy: { policy: 'noop' },
      archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
      namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
      dynamicConfigClient: { filepath: dcFile, pollInterval: '10s' },
    };
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

/** Registers `default` and waits until the frontend's namespace cache knows it (it refreshes on a timer). */
async function registerDefaultNamespace(address: string): Promise<void> {
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
