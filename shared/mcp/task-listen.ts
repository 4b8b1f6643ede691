import { AppError, errors } from '../platform/errors/index';
import { isTerminal, type RunRecord, type WebhookRunService } from '../webhook-runs/index';
import type { GroupAccess } from '../workspaces/index';
import { detailedTask, type McpTask, TASK_POLL_INTERVAL_MS } from './tasks';

/**
 * Task status notifications (`notifications/tasks`, the tasks extension over SEP-2575's
 * `subscriptions/listen`): a listen names task ids; each of the caller's is followed through the
 * process's run waits (one shared watch per run, its end told by the engine: no store read per
 * listener), and the stream ends once every followed task is over or the listen's lifetime ends.
 */
export interface TaskListenLimits {
  /** Task ids one listen may name. */
  maxTasks: number;
  /** Listens one agent group may hold open in this process at once. */
  perGroup: number;
  /** How long one listen lasts at most; the client listens again for longer. */
  maxMs: number;
}

export const DEFAULT_TASK_LISTEN_LIMITS: TaskListenLimits = { maxTasks: 16, perGroup: 8, maxMs: 5 * 60_000 };

/** One open listen: the tasks it follows (its acknowledged ids) and their states as it began. */
export interface TaskListen {
  taskIds: string[];
  /** Each followed task as `tasks/get` answers it now: the first notification of each. */
  initial: McpTask[];
  /**
   * Follows the tasks until each is over (or the lifetime ends, or `signal` aborts), telling
   * `notify` each change of status. Resolves once it stops.
   */
  follow(signal: AbortSignal, notify: (task: McpTask) => void): Promise<void>;
  /** Gives the listen's slot back (idempotent). */
  close(): void;
}

/** The params of a `subscriptions/listen` that asks for task notifications, checked. */
export function listenedTaskIds(notifications: unknown, maxTasks: number): string[] {
  const ids = (notifications as { taskIds?: unknown } | null)?.taskIds;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > maxTasks)
    throw errors.badRequest(
      'invalid_request',
      `params.notifications.taskIds must be a list of 1 to ${maxTasks} task ids`,
    );
  if (!ids.every((id) => typeof id === 'string' && id.length > 0 && id.length <= 200))
    throw errors.badRequest('invalid_request', 'params.notifications.taskIds must hold task ids (strings)');
  return [...new Set(ids as string[])];
}

const RUN_ID = /^run_[0-9a-f]{24}$/;

export class TaskListens {
  private readonly open = new Map<string, number>();

  constructor(
    private readonly runs: WebhookRunService,
    readonly limits: TaskListenLimits = DEFAULT_TASK_LISTEN_LIMITS,
  ) {}

  /**
   * Opens a listen of `access`'s group on the named tasks: its own ones are followed, any other
   * id (unknown, another group's, malformed) is left out of the acknowledged set alike. Refused
   * (429, `listen_limit_reached`) when the group holds its limit of listens open already.
   */
  async listen(access: GroupAccess | undefined, taskIds: string[]): Promise<TaskListen> {
    const owner = access?.group._id;
    const held = owner === undefined ? 0 : (this.open.get(owner) ?? 0);
    if (owner !== undefined && held >= this.limits.perGroup)
      throw new AppError(
        429,
        'listen_limit_reached',
        `this agent group holds ${this.limits.perGroup} task listens open already; close one or poll tasks/get`,
      );
    if (owner !== undefined) this.open.set(owner, held + 1);
    let closed = false;
    const close = () => {
      if (closed || owner === undefined) return;
      closed = true;
      const left = (this.open.get(owner) ?? 1) - 1;
      if (left > 0) this.open.set(owner, left);
      else this.open.delete(owner);
    };
    try {
      const records = access ? await Promise.all(taskIds.map((id) => this.own(access, id))) : [];
      const followed = records.filter((r): r is RunRecord => r !== undefined);
      return {
        taskIds: followed.map((r) => r.run._id),
        initial: followed.map((r) => this.task(r)),
        follow: (signal, notify) => this.follow(access!, followed, signal, notify).finally(close),
        close,
      };
    } catch (err) {
      close();
      throw err;
    }
  }

  /** The group's run of this id, or undefined when it is none of its own. */
  private async own(access: GroupAccess, taskId: string): Promise<RunRecord | undefined> {
    if (!RUN_ID.test(taskId)) return undefined;
    try {
      return await this.runs.poll(access, taskId);
    } catch (err) {
      if (err instanceof AppError && err.status === 404) return undefined;
      throw err;
    }
  }

  private task(record: RunRecord): McpTask {
    return detailedTask(record, this.runs.statusUrl(record.run._id));
  }

  private async follow(
    access: GroupAccess,
    records: RunRecord[],
    signal: AbortSignal,
    notify: (task: McpTask) => void,
  ): Promise<void> {
    const deadline = Date.now() + this.limits.maxMs;
    await Promise.all(
      records.map(async (first) => {
        let last = this.task(first).status;
        let record = first;
        while (!isTerminal(record.run.status) && !signal.aborted) {
          const left = deadline - Date.now();
          if (left <= 0) return;
          // The shared run wait: woken by the engine at the run's end, whatever the number of listeners.
          record = await this.runs.getWhenDone(access, first.run._id, left, signal);
          const task = this.task(record);
          if (task.status !== last && !signal.aborted) {
            last = task.status;
            notify(task);
          }
          // A wait refused for want of room answers at once: pause as a poller would before the next.
          if (!isTerminal(record.run.status)) await pause(Math.min(TASK_POLL_INTERVAL_MS, left), signal);
        }
      }),
    );
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
