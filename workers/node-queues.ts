import { nodeWorkerOf } from '../shared/workflows/nodes/activities';
import { NODE_KINDS, NODE_TYPES, type NodeType } from '../shared/workflows/nodes/index';
import { reposOf, type WorkerDeps } from './deps';
import type { QueueDefinition } from './queue';

/** The command-line key of a kind's queue: `node-<kind>`, `_` written `-` (`--queues node-http-get`). */
export const nodeQueueKey = (type: NodeType): string => `node-${type.replaceAll('_', '-')}`;

/**
 * Each registered kind's two queues, in the registry's order: `node-<kind>` (workspace graphs)
 * and `untrusted-node-<kind>` (wallet-authored graphs, a process of their own), both serving the
 * activities of the kind's folder. Nothing here names a kind.
 */
const KIND_QUEUES = NODE_TYPES.map((type): [QueueDefinition, QueueDefinition] => {
  const kind = NODE_KINDS[type];
  const worker = nodeWorkerOf(type);
  const served: Omit<QueueDefinition, 'key' | 'taskQueue'> = {
    activities: (deps: WorkerDeps) => {
      const activities = worker.activities({
        models: deps.db.models,
        ...reposOf(deps),
        identity: deps.identity,
        config: deps.config,
      });
      // The registry names the activity the workflows schedule: a worker without it would leave nodes waiting.
      if (typeof activities[kind.activity] !== 'function')
        throw new Error(`node kind ${type}: its activities lack ${kind.activity}`);
      return activities;
    },
    activitiesOnly: true,
    ...(worker.workerOptions ? { workerOptions: worker.workerOptions } : {}),
  };
  return [
    { ...served, key: nodeQueueKey(type), taskQueue: kind.queue },
    { ...served, key: `untrusted-${nodeQueueKey(type)}`, taskQueue: kind.untrustedQueue, untrusted: true },
  ];
});

export const NODE_QUEUE_DEFINITIONS: readonly QueueDefinition[] = KIND_QUEUES.map(([trusted]) => trusted);
export const UNTRUSTED_NODE_QUEUE_DEFINITIONS: readonly QueueDefinition[] = KIND_QUEUES.map(
  ([, untrusted]) => untrusted,
);
