import { createConditionNodeActivities } from '../temporal/webhook-runs/activities/condition';
import { NODE_QUEUES } from '../temporal/webhook-runs/config';
import type { QueueDefinition } from './queue';

export const nodeConditionQueue: QueueDefinition = {
  key: 'node-condition',
  taskQueue: NODE_QUEUES.condition,
  activities: (deps) => createConditionNodeActivities({ identity: deps.identity }),
};
