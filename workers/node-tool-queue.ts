import { createToolNodeActivities } from '../temporal/webhook-runs/activities/tool';
import { NODE_QUEUES } from '../temporal/webhook-runs/config';
import { createSessionToolActivities } from '../temporal/workflow-session/tool-node';
import { domainOf } from './deps';
import type { QueueDefinition } from './queue';

/** Paid tool nodes of runs (workspace account) and of wallet sessions (the wallet), through the tool invoker (shared/tools/invoke.ts). */
export const nodeToolQueue: QueueDefinition = {
  key: 'node-tool',
  taskQueue: NODE_QUEUES.tool,
  workerOptions: { maxHeartbeatThrottleInterval: '1 second' },
  activities: (deps) => ({
    ...createToolNodeActivities({ models: deps.db.models, ...domainOf(deps), identity: deps.identity, toolSecretsKey: deps.config.tools.secretsKey, credentialsKey: deps.config.credentialsKey }),
    ...createSessionToolActivities({ models: deps.db.models, ...domainOf(deps), identity: deps.identity, toolSecretsKey: deps.config.tools.secretsKey }),
  }),
};
