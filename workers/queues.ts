import type { QueueDefinition } from './queue';
import { creditsQueue } from './credits-queue';
import { settlementsQueue } from './settlements-queue';
import { systemQueue } from './system-queue';
import { toolsQueue } from './tools-queue';
import { jobsQueue } from './jobs-queue';
import { runsQueue } from './runs-queue';
import { NODE_QUEUE_DEFINITIONS, UNTRUSTED_NODE_QUEUE_DEFINITIONS } from './node-queues';
import { callbacksQueue } from './callbacks-queue';
import { schedulesQueue } from './schedules-queue';
import { sessionsQueue } from './sessions-queue';

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
 * Queue keys, or a group: `all`, `trusted` (every queue but the untrusted ones) or `untrusted`
 * (wallet-authored graphs' nodes; production runs them in a worker process of their own).
 */
export function selectQueues(keys: string[] | 'all'): QueueDefinition[] {
  if (keys === 'all') return [...QUEUES];
  if (keys.length === 1 && keys[0] === 'trusted') return QUEUES.filter((q) => !q.untrusted);
  if (keys.length === 1 && keys[0] === 'untrusted') return QUEUES.filter((q) => q.untrusted);
  const unknown = keys.filter((k) => !QUEUES.some((q) => q.key === k));
  if (unknown.length > 0) {
    throw new Error(`unknown queue(s): ${unknown.join(', ')}; known: ${QUEUES.map((q) => q.key).join(', ')}`);
  }
  return QUEUES.filter((q) => keys.includes(q.key));
}
