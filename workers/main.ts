import { Runtime } from '@temporalio/worker';
import { createDb } from '../shared/composition/store';
import { getConfig } from '../shared/platform/config/index';
import { describeError, logger } from '../shared/platform/logger/index';
import { startTracing, stopTracing } from '../shared/platform/tracing/index';
import { createTemporal, ensureSearchAttributes } from '../temporal/connection';
import { ensureExpirySchedule } from '../temporal/credit-expiry/client';
import { startReservationSweep } from '../temporal/job-reservation/client';
import { ensureRunHealSchedule } from '../temporal/run-heal/client';
import { ensureHoldHealSchedule } from '../temporal/tool-holds/client';
import { ensureSettlementSweepSchedule } from '../temporal/x402-sweep/client';
import { workerIdentity } from './deps';
import { sdkLogger } from './logging';
import { startWorkerMetrics } from './metrics';
import { queuesToServe } from './queues';
import { queueActivities, runWorkers } from './run-workers';

function parseQueues(argv: string[]): string[] | 'all' {
  const i = argv.indexOf('--queues');
  const value = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--queues='))?.slice('--queues='.length);
  if (!value || value === 'all') return 'all';
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

async function waitFor<T>(what: string, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      logger.warn(`${what} not ready, retrying`, { attempt, error: (err as Error).message });
      await new Promise((r) => setTimeout(r, Math.min(5000, 500 * attempt)));
    }
  }
}

async function main(): Promise<void> {
  let config;
  let queues;
  let deps;
  let activities;
  let leftOut;
  try {
    config = getConfig();
    // Before the Temporal client is made: its interceptors come from the running tracing.
    startTracing(config.tracing, 'worker');
    ({ queues, leftOut } = queuesToServe(parseQueues(process.argv.slice(2)), config));
    deps = {
      config,
      db: createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName }),
      temporal: createTemporal(config),
      identity: workerIdentity(),
    };
    // A queue's missing settings are not something waiting fixes: they stop the start like a bad variable.
    activities = queueActivities(deps, queues);
  } catch (err) {
    console.error((err as Error).message);
    process.exit(78);
  }
  const { db, temporal } = deps;
  for (const { key, reason } of leftOut) logger.warn(`not serving queue ${key}`, { reason });
  const metrics = config.workerMetricsPort
    ? await startWorkerMetrics({
        host: config.workerMetricsHost,
        port: config.workerMetricsPort,
        token: config.metricsToken,
        helpBaseUrl: config.publicBaseUrl,
      })
    : undefined;
  Runtime.install({
    logger: sdkLogger,
    shutdownSignals: ['SIGINT', 'SIGTERM'],
    telemetryOptions: metrics?.telemetryOptions,
  });
  await waitFor('mongodb', () => db.ready(5000));
  await waitFor('temporal', () => ensureSearchAttributes(temporal));
  if (queues.some((q) => q.key === 'credits')) await waitFor('expiry schedule', () => ensureExpirySchedule(temporal));
  if (queues.some((q) => q.key === 'settlements'))
    await waitFor('settlement sweep schedule', () =>
      ensureSettlementSweepSchedule(temporal, config.x402.sweepStaleSeconds),
    );
  if (queues.some((q) => q.key === 'tools'))
    await waitFor('hold healer schedule', () => ensureHoldHealSchedule(temporal, config.tools.holdStaleMinutes));
  if (queues.some((q) => q.key === 'system'))
    await waitFor('run healer schedule', () => ensureRunHealSchedule(temporal, config.runHealStaleSeconds));
  if (queues.some((q) => q.key === 'jobs'))
    await waitFor('job reservation sweep', () => startReservationSweep(temporal));
  const running = await waitFor('temporal worker', () => runWorkers(deps, queues, config.temporalAddress, activities));
  await running.done;
  await Promise.allSettled([db.close(), temporal.close(), metrics?.close(), stopTracing()]);
  logger.info('worker stopped');
}

main().catch((err) => {
  logger.error('worker failed', describeError(err));
  process.exit(1);
});
