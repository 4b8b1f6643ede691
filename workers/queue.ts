import type { WorkerOptions } from '@temporalio/worker';
import type { AppConfig } from '../shared/platform/config/index';
import type { WorkerDeps } from './deps';

/** One task queue a worker process can serve: its name and the activities behind it. */
export interface QueueDefinition {
  /** Short name used on the command line (`--queues system,credits`). */
  key: string;
  /** Versioned Temporal task queue name (before the test prefix). */
  taskQueue: string;
  activities(deps: WorkerDeps): object;
  /**
   * Why this deployment cannot serve the queue (a setting it needs is unset), or undefined. A
   * group (`trusted`, `all`) leaves such a queue out, so compose and `make dev` can start the same
   * groups whether payments are configured or not; named on its own it stops the start.
   */
  unavailable?(config: AppConfig): string | undefined;
  /** Worker settings this queue needs (e.g. a short heartbeat throttle so cancels reach slow calls fast). */
  workerOptions?: Pick<WorkerOptions, 'maxHeartbeatThrottleInterval' | 'maxConcurrentActivityTaskExecutions'>;
  /** Serves wallet-authored graphs' nodes: run in a worker process apart from every trusted queue. */
  untrusted?: true;
  /**
   * No workflow runs on this queue (a node kind's queue: the run's workflow dispatches only its
   * activities here), so its worker polls for no workflow tasks and loads no workflow bundle (the
   * queues that do share the process's one workflow thread, workers/run-workers.ts).
   */
  activitiesOnly?: true;
}
