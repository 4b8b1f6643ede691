import { bundleWorkflowCode, NativeConnection, Worker, WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { logger } from '../shared/logger';
import type { WorkerDeps } from './deps';
import { activityLogContext } from './logging';
import type { QueueDefinition } from './queue';

export const WORKFLOWS_PATH = require.resolve('../temporal/workflows');

let bundlePromise: Promise<WorkflowBundleWithSourceMap> | undefined;

/** Bundles the workflow code once per process, however many queues it serves. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundlePromise ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
  return bundlePromise;
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => logger.warn(message),
  error: (message: string) => logger.error(message),
};

export interface RunningWorkers {
  workers: Worker[];
  /** Resolves when every worker has stopped. */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

/** Creates one Temporal worker per queue over a shared native connection and runs them. */
export async function runWorkers(deps: WorkerDeps, queues: QueueDefinition[], address: string): Promise<RunningWorkers> {
  const connection = await NativeConnection.connect({ address });
  const bundle = await workflowBundle();
  const workers = await Promise.all(
    queues.map((q) =>
      Worker.create({
        connection,
        namespace: deps.config.temporalNamespace,
        taskQueue: deps.temporal.queue(q.taskQueue),
        workflowBundle: bundle,
        activities: q.activities(deps),
        identity: deps.identity,
        interceptors: { activity: [activityLogContext] },
        ...q.workerOptions,
      }),
    ),
  );
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
