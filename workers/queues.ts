import type { AppConfig } from '../shared/platform/config/index';
import { callbacksQueue } from './callbacks-queue';
import { creditsQueue } from './credits-queue';
import { jobsQueue } from './jobs-queue';
import { NODE_QUEUE_DEFINITIONS, UNTRUSTED_NODE_QUEUE_DEFINITIONS } from './node-queues';
import type { QueueDefinition } from './queue';
import { runsQueue } from './runs-queue';
import { schedulesQueue } from './schedules-queue';
import { sessionsQueue } from './sessions-queue';
import { settlementsQueue } from './settlements-queue';
import { systemQueue } from './system-queue';
import { toolsQueue } from './tools-queue';

/** Every queue a worker can serve. Adding a worker: see docs/adding-a-worker.md. */
export const QUEUES: readonly QueueDefinition[] = [
  systemQueue,
  creditsQueue,
  settlementsQueue,
  toolsQueue,
  jobsQueue,
  runsQueue,
  ...NODE_QUEUE_DEFINITIONS,
  callbacksQueue,
  schedulesQueue,
  sessionsQueue,
  ...UNTRUSTED_NODE_QUEUE_DEFINITIONS,
];

/**
 * The groups a worker process is started with: `trusted` (every queue but the untrusted ones)
 * and `untrusted` (wallet-authored graphs' nodes), each in a process of its own (compose's
 * `worker` and `untrusted-worker`, `make dev`'s two workers); `all` is both in one process.
 */
export const WORKER_GROUPS = {
  all: () => true,
  trusted: (q: QueueDefinition) => !q.untrusted,
  untrusted: (q: QueueDefinition) => q.untrusted === true,
} as const;

export type WorkerGroup = keyof typeof WORKER_GROUPS;

const isGroup = (keys: string[] | 'all'): WorkerGroup | undefined => {
  const key = keys === 'all' ? 'all' : keys.length === 1 ? keys[0] : undefined;
  return key !== undefined && Object.prototype.hasOwnProperty.call(WORKER_GROUPS, key)
    ? (key as WorkerGroup)
    : undefined;
};

/** Queue keys, or one group (`all`, `trusted`, `untrusted`). */
export function selectQueues(keys: string[] | 'all'): QueueDefinition[] {
  const group = isGroup(keys);
  if (keys === 'all' || group) return QUEUES.filter(WORKER_GROUPS[group ?? 'all']);
  const unknown = keys.filter((k) => !QUEUES.some((q) => q.key === k));
  if (unknown.length > 0) {
    throw new Error(`unknown queue(s): ${unknown.join(', ')}; known: ${QUEUES.map((q) => q.key).join(', ')}`);
  }
  return QUEUES.filter((q) => keys.includes(q.key));
}

/**
 * What a process started with `keys` serves under `config`: a group leaves out the queues this
 * deployment cannot serve (settlements without x402 configured) and says so; queues named one by
 * one are all served, and one that cannot be stops the start (its `activities` throws).
 */
export function queuesToServe(
  keys: string[] | 'all',
  config: AppConfig,
): { queues: QueueDefinition[]; leftOut: Array<{ key: string; reason: string }> } {
  const selected = selectQueues(keys);
  if (!isGroup(keys)) return { queues: selected, leftOut: [] };
  const leftOut = selected.flatMap((q) => {
    const reason = q.unavailable?.(config);
    return reason ? [{ key: q.key, reason }] : [];
  });
  return { queues: selected.filter((q) => !leftOut.some((l) => l.key === q.key)), leftOut };
}
