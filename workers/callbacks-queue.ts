import { createCallbackActivities } from '../temporal/webhook-callbacks/activities';
import { CALLBACK_QUEUE } from '../temporal/webhook-callbacks/config';
import type { QueueDefinition } from './queue';

/** Signed callback deliveries of finished runs. */
export const callbacksQueue: QueueDefinition = {
  key: 'callbacks',
  taskQueue: CALLBACK_QUEUE,
  activities: (deps) => createCallbackActivities({ models: deps.db.models, credentialsKey: deps.config.credentialsKey, callbacks: deps.config.callbacks }),
};
