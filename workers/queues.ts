import type { QueueDefinition } from './queue';
import { creditsQueue } from './credits-queue';
import { settlementsQueue } from './settlements-queue';
import { systemQueue } from './system-queue';
import { toolsQueue } from './tools-queue';
import { jobsQueue } from './jobs-queue';
import { runsQueue } from './runs-queue';
import { nodeTemplateQueue } from './node-template-queue';
import { nodeConditionQueue } from './node-condition-queue';
import { nodeModelQueue } from './node-model-queue';
import { nodeToolQueue } from './node-tool-queue';
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
  nodeTemplateQueue,
  nodeConditionQueue,
  nodeModelQueue,
  nodeToolQueue,
  callbacksQueue,
  schedulesQueue,
  sessionsQueue,
];

export function selectQueues(keys: string[] | 'all'): QueueDefinition[] {
  if (keys === 'all') return [...QUEUES];
  const unknown = keys.filter((k) => !QUEUES.some((q) => q.key === k));
  if (unknown.length > 0) {
    throw new Error(`unknown queue(s): ${unknown.join(', ')}; known: ${QUEUES.map((q) => q.key).join(', ')}`);
  }
  return QUEUES.filter((q) => keys.includes(q.key));
}
