import { createScheduleLeaseActivities } from '../temporal/schedule-lease/activities';
import { SCHEDULE_LEASE_QUEUE } from '../temporal/schedule-lease/config';
import { reposOf } from './deps';
import type { QueueDefinition } from './queue';

export const schedulesQueue: QueueDefinition = {
  key: 'schedules',
  taskQueue: SCHEDULE_LEASE_QUEUE,
  activities: (deps) => createScheduleLeaseActivities(reposOf(deps)),
};
