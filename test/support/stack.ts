import { RunningServer, startServer } from '../../api/http/server';
import type { Db } from '../../shared/composition/store';
import { createDb } from '../../shared/composition/store';
import { AppConfig, parseConfig } from '../../shared/platform/config/index';
import { startTracing, stopTracing } from '../../shared/platform/tracing/index';
import { createTemporal, ensureSearchAttributes, TemporalHandle } from '../../temporal/connection';
import { selectQueues } from '../../workers/queues';
import { RunningWorkers, runWorkers } from '../../workers/run-workers';
import { STORE_READY_MS } from './db';
import { checkAnswersOf } from './http';
import { installTestRuntime } from './runtime';

export interface TestStack {
  config: AppConfig;
  db: Db;
  temporal: TemporalHandle;
  server: RunningServer;
  workers?: RunningWorkers;
  stop(): Promise<void>;
}

/** The real API on port 0 against the run's MongoDB-wire server and Temporal, optionally with workers. */
/** A second stack on the same database (another API instance) passes keepDatabase so its stop leaves the data. */
export async function startTestStack(
  opts: {
    workers?: boolean;
    queues?: string[];
    env?: NodeJS.ProcessEnv;
    keepDatabase?: boolean;
    waitForStore?: boolean;
  } = {},
): Promise<TestStack> {
  installTestRuntime();
  const config = parseConfig({ ...process.env, ...opts.env });
  // As the API and the workers start it (OTEL_EXPORTER_OTLP_ENDPOINT in env): before the Temporal client.
  const tracing = startTracing(config.tracing, 'api');
  const db = createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName });
  if (opts.waitForStore !== false) await db.ready(STORE_READY_MS);
  const temporal = createTemporal(config);
  let workers: RunningWorkers | undefined;
  if (opts.workers) {
    await ensureSearchAttributes(temporal);
    workers = await runWorkers(
      { config, db, temporal, identity: `test-${process.pid}` },
      selectQueues(opts.queues ?? 'all'),
      config.temporalAddress,
    );
  }
  const server = await startServer({ config, db, temporal }, { main: 0, api: 0 });
  checkAnswersOf(server.mainUrl, server.apiUrl);
  return {
    config,
    db,
    temporal,
    server,
    workers,
    stop: async () => {
      await server.stop();
      await workers?.shutdown();
      if (!opts.keepDatabase) await db.connection.dropDatabase().catch(() => undefined);
      await db.close();
      await temporal.close();
      if (tracing) await stopTracing();
    },
  };
}
