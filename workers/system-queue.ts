import { createPingActivities } from '../temporal/ping/activities';
import { PING_QUEUE } from '../temporal/ping/config';
import type { QueueDefinition } from './queue';

export const systemQueue: QueueDefinition = {
  key: 'system',
  taskQueue: PING_QUEUE,
  activities: (deps) => createPingActivities({ pings: deps.db.models.pings, workerIdentity: deps.identity }),
};
