import { NativeConnection, Worker } from '@temporalio/worker';
import { logger } from '../shared/platform/logger/index';
import { runningTracing } from '../shared/platform/tracing/index';
import type { WorkerDeps } from './deps';
import { activityLogContext } from './logging';
import type { QueueDefinition } from './queue';
import { workflowBundle } from './workflow-bundle';

export interface RunningWorkers {
  workers: Worker[];
  /** Resolves when every worker has stopped. */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Each queue's activities, built before anything connects: a queue whose configuration is missing
 * (settlements without X402_PAY_TO) throws here, once, instead of on every connection attempt.
 */
export function queueActivities(deps: WorkerDeps, queues: QueueDefinition[]): object[] {
  return queues.map((q) => q.activities(deps));
}

/**
 * Creates one Temporal worker per queue over a shared native connection and runs them. If one
 * cannot be created, those that were are stopped and the connection closed before it throws, so
 * a caller retrying (the server not up yet) leaks nothing.
 */
export async function runWorkers(
  deps: WorkerDeps,
  queues: QueueDefinition[],
  address: string,
  activities = queueActivities(deps, queues),
): Promise<RunningWorkers> {
  const connection = await NativeConnection.connect({ address });
  const tracing = runningTracing();
  let workers: Worker[];
  try {
    const bundle = queues.some((q) => !q.activitiesOnly) ? await workflowBundle({ traced: !!tracing }) : undefined;
    const created = await Promise.allSettled(
      queues.map((q, i) =>
        Worker.create({
          connection,
          namespace: deps.config.temporalNamespace,
          taskQueue: deps.temporal.queue(q.taskQueue),
          ...(q.activitiesOnly ? {} : { workflowBundle: bundle }),
          activities: activities[i],
          identity: deps.identity,
          interceptors: { activity: [activityLogContext, ...(tracing?.activityInterceptors ?? [])] },
          ...(tracing ? { sinks: tracing.sinks } : {}),
          ...q.workerOptions,
        }),
      ),
    );
    const failed = created.find((c): c is PromiseRejectedResult => c.status === 'rejected');
    workers = created.flatMap((c) => (c.status === 'fulfilled' ? [c.value] : []));
    if (failed) {
      // A created worker holds native resources until it has run and shut down.
      await Promise.all(
        workers.map(async (w) => {
          const ran = w.run();
          if (w.getState() === 'RUNNING') w.shutdown();
          await ran;
        }),
      );
      throw failed.reason;
    }
  } catch (err) {
    await connection.close();
    throw err;
  }
  const done = Promise.all(workers.map((w) => w.run())).then(async () => {
    await connection.close();
  });
  logger.info('workers running', { queues: queues.map((q) => deps.temporal.queue(q.taskQueue)) });
  return {
    workers,
    done,
    shutdown: async () => {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await done;
    },
  };
}
