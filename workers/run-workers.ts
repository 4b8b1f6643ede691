import { NativeConnection, Worker } from '@temporalio/worker';
import { logger } from '../shared/platform/logger/index';
import { runningTracing } from '../shared/platform/tracing/index';
import type { WorkerDeps } from './deps';
import { activityLogContext } from './logging';
import type { QueueDefinition } from './queue';
import { workerWorkflowBundle } from './workflow-bundle';

type CreatorArgs = Parameters<(typeof Worker)['createWorkflowCreator']>;
type WorkflowCreator = Awaited<ReturnType<(typeof Worker)['createWorkflowCreator']>>;
type BundleArgs = Parameters<(typeof Worker)['getOrCreateBundle']>;
type ParsedBundle = ReturnType<(typeof Worker)['getOrCreateBundle']>;

/**
 * A Worker class whose instances share one parsed bundle and one workflow creator: one worker
 * thread, one V8 isolate with one copy of the bundle and one reused context, runs the workflows
 * of every queue of the process. The SDK would give each Worker its own thread and isolate (a
 * worker of every queue held nine), which is most of a worker's memory; a workflow's state lives
 * in its run's sandbox either way, so sharing changes where it runs, not what it sees. The local activity check the sandbox
 * makes eagerly knows every activity of the process (`activities`). A worker's own shutdown leaves
 * the thread to the others; `close()` ends it once every worker has stopped, or none was created.
 */
export function sharedWorkflowThread(activities: object[]): { Worker: typeof Worker; close(): Promise<void> } {
  let shared: Promise<WorkflowCreator> | undefined;
  let parsed: ParsedBundle | undefined;
  return {
    Worker: class SharedWorkflowThreadWorker extends Worker {
      // The SDK parses the bundle for every Worker (a copy of its code, and a throwaway context that
      // runs it for debuggers): every Worker of the process is given the same bundle, so once is enough.
      protected static override getOrCreateBundle(...[options, logger]: BundleArgs): ParsedBundle {
        if (!options.workflowBundle) return super.getOrCreateBundle(options, logger);
        parsed ??= super.getOrCreateBundle(options, logger);
        return parsed;
      }

      protected static override async createWorkflowCreator(...[bundle, options, logger]: CreatorArgs) {
        const every = new Map([...activities.flatMap((a) => Object.entries(a)), ...options.activities]);
        shared ??= super.createWorkflowCreator(bundle, { ...options, activities: every }, logger);
        const creator = await shared;
        return {
          createWorkflow: (o) => creator.createWorkflow(o),
          destroy: async () => undefined,
        } satisfies WorkflowCreator;
      }
    },
    close: async () => {
      const creator = await shared?.catch(() => undefined);
      shared = undefined;
      parsed = undefined;
      await creator?.destroy();
    },
  };
}

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
 * Creates one Temporal worker per queue over a shared native connection and a shared workflow
 * thread, and runs them. If one cannot be created, those that were are stopped and the thread and
 * the connection closed before it throws, so a caller retrying (the server not up yet) leaks nothing.
 */
export async function runWorkers(
  deps: WorkerDeps,
  queues: QueueDefinition[],
  address: string,
  activities = queueActivities(deps, queues),
): Promise<RunningWorkers> {
  const connection = await NativeConnection.connect({ address });
  const tracing = runningTracing();
  const workflowThread = sharedWorkflowThread(activities);
  let workers: Worker[];
  try {
    const bundle = queues.some((q) => !q.activitiesOnly)
      ? await workerWorkflowBundle({ traced: !!tracing })
      : undefined;
    const created = await Promise.allSettled(
      queues.map((q, i) =>
        workflowThread.Worker.create({
          connection,
          namespace: deps.config.temporalNamespace,
          taskQueue: deps.temporal.queue(q.taskQueue),
          ...(q.activitiesOnly ? {} : { workflowBundle: bundle }),
          activities: activities[i],
          identity: deps.identity,
          interceptors: { activity: [activityLogContext, ...(tracing?.activityInterceptors ?? [])] },
          ...(tracing ? { sinks: tracing.sinks } : {}),
          ...(deps.config.workerMaxCachedWorkflows ? { maxCachedWorkflows: deps.config.workerMaxCachedWorkflows } : {}),
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
    await workflowThread.close();
    await connection.close();
    throw err;
  }
  const done = Promise.all(workers.map((w) => w.run())).then(async () => {
    await workflowThread.close();
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
