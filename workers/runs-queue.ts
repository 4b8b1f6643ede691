import { createRunStoreActivities } from '../temporal/webhook-runs/activities/store';
import { RUN_QUEUE } from '../temporal/webhook-runs/config';
import { reposOf } from './deps';
import type { QueueDefinition } from './queue';

/** Webhook run workflows and their record writes. */
export const runsQueue: QueueDefinition = {
  key: 'runs',
  taskQueue: RUN_QUEUE,
  activities: (deps) => createRunStoreActivities({ runs: reposOf(deps).runs, identity: deps.identity }),
};
