import { createPingActivities } from '../temporal/ping/activities';
import { PING_QUEUE } from '../temporal/ping/config';
import { createRunHealActivities } from '../temporal/run-heal/activities';
import { rootOf } from './deps';
import type { QueueDefinition } from './queue';

export const systemQueue: QueueDefinition = {
  key: 'system',
  taskQueue: PING_QUEUE,
  activities: (deps) => ({
    ...createPingActivities({ pings: deps.db.models.pings, workerIdentity: deps.identity }),
    ...createRunHealActivities({ runs: rootOf(deps).repos.runs, service: rootOf(deps).services.webhookRuns }),
  }),
};
