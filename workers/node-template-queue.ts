import { createTemplateNodeActivities } from '../temporal/webhook-runs/activities/template';
import { NODE_QUEUES } from '../temporal/webhook-runs/config';
import type { QueueDefinition } from './queue';

export const nodeTemplateQueue: QueueDefinition = {
  key: 'node-template',
  taskQueue: NODE_QUEUES.template,
  activities: (deps) => createTemplateNodeActivities({ identity: deps.identity }),
};
