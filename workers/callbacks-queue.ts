import { createCallbackActivities } from '../temporal/webhook-callbacks/activities';
import { CALLBACK_QUEUE } from '../temporal/webhook-callbacks/config';
import { reposOf } from './deps';
import type { QueueDefinition } from './queue';

/** Signed callback deliveries of finished runs, and the replays groups ask for. */
export const callbacksQueue: QueueDefinition = {
  key: 'callbacks',
  taskQueue: CALLBACK_QUEUE,
  activities: (deps) => createCallbackActivities({ ...reposOf(deps), callbacks: deps.config.callbacks }),
};
