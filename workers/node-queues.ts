import { NODE_KINDS, NODE_TYPES, type NodeType } from '../shared/workflows/nodes/index';
import { createConditionNodeActivities } from '../temporal/webhook-runs/activities/condition';
import { createModelNodeActivities } from '../temporal/webhook-runs/activities/model';
import { createTemplateNodeActivities } from '../temporal/webhook-runs/activities/template';
import { createToolNodeActivities } from '../temporal/webhook-runs/activities/tool';
import { createSessionToolActivities } from '../temporal/workflow-session/tool-node';
import { reposOf, type WorkerDeps } from './deps';
import type { QueueDefinition } from './queue';

/** Some of the root's repositories, by name (a factory's deps are only what it uses). */
function pick<T extends object, K extends keyof T>(from: T, ...keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, from[k]])) as Pick<T, K>;
}

/** The worker half of a node kind: what serves its queue (the registry's entry holds the rest). */
interface NodeWorker<T extends NodeType> {
  /** The activities of its queue; the kind's `activity` is among them (the compiler checks). */
  activities(deps: WorkerDeps): Record<(typeof NODE_KINDS)[T]['activity'], (...args: any[]) => Promise<unknown>>;
  workerOptions?: QueueDefinition['workerOptions'];
}

/** One entry per node kind (a missing kind does not compile). */
const NODE_WORKERS: { [T in NodeType]: NodeWorker<T> } = {
  template: { activities: (deps) => createTemplateNodeActivities({ identity: deps.identity }) },
  condition: { activities: (deps) => createConditionNodeActivities({ identity: deps.identity }) },
  /** Paid from the run's workspace or the session's wallet; without MODEL_API_URL they end runs as setup_required (the queue still serves). */
  model: {
    // Heartbeats reach the server at least every second, so a cancel reaches the HTTP call within ~1 s.
    workerOptions: { maxHeartbeatThrottleInterval: '1 second' },
    activities: (deps) => createModelNodeActivities({ models: deps.db.models, ...pick(reposOf(deps), 'ledger', 'workspaces', 'sessions', 'budgetCharges'), identity: deps.identity, model: deps.config.model }),
  },
  /** Paid tool nodes of runs (workspace account) and of wallet sessions (the wallet), through the tool invoker (shared/tools/invoke.ts). */
  tool: {
    workerOptions: { maxHeartbeatThrottleInterval: '1 second' },
    activities: (deps) => ({
      ...createToolNodeActivities({ models: deps.db.models, ...pick(reposOf(deps), 'ledger', 'tools', 'workspaces', 'budgetCharges'), identity: deps.identity, toolSecretsKey: deps.config.tools.secretsKey, credentialsKey: deps.config.credentialsKey }),
      ...createSessionToolActivities({ models: deps.db.models, ...pick(reposOf(deps), 'ledger', 'tools'), identity: deps.identity, toolSecretsKey: deps.config.tools.secretsKey }),
    }),
  },
};

/** The command-line key of a kind's queue: `node-<kind>`, `_` written `-` (`--queues node-http-get`). */
export const nodeQueueKey = (type: NodeType): string => `node-${type.replaceAll('_', '-')}`;

/** Each kind's queue, in the registry's order. */
export const NODE_QUEUE_DEFINITIONS: readonly QueueDefinition[] = NODE_TYPES.map((type) => ({
  key: nodeQueueKey(type),
  taskQueue: NODE_KINDS[type].queue,
  activities: NODE_WORKERS[type].activities,
  activitiesOnly: true,
  ...(NODE_WORKERS[type].workerOptions ? { workerOptions: NODE_WORKERS[type].workerOptions } : {}),
}));

/** The same activities on each kind's untrusted queue (`untrusted-node-<kind>`: wallet-authored graphs, a process of their own). */
export const UNTRUSTED_NODE_QUEUE_DEFINITIONS: readonly QueueDefinition[] = NODE_TYPES.map((type, i) => ({
  ...NODE_QUEUE_DEFINITIONS[i],
  key: `untrusted-${nodeQueueKey(type)}`,
  taskQueue: NODE_KINDS[type].untrustedQueue,
  untrusted: true,
}));
