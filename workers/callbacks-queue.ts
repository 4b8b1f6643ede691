import { createCallbackActivities } from '../temporal/webhook-callbacks/activities';
import { CALLBACK_QUEUE } from '../temporal/webhook-callbacks/config';
import { reposOf } from './deps';
import type { QueueDefinition } from './queue';

/** Signed callback deliveries of finished runs, and the replays groups ask for. */
export const callbacksQueue: QueueDefinition = {
  key: 'callbacks',
  taskQueue: CALLBACK_QUEUE,
  activities: (deps) =>
    createCallbackActivities({
      models: deps.db.models,
      runs: reposOf(deps).runs,
      workspaces: reposOf(deps).workspaces,
      deliveries: reposOf(deps).deliveries,
      signingKeys: reposOf(deps).signingKeys,
      credentialsKey: deps.config.credentialsKey,
      callbacks: deps.config.callbacks,
    }),
};
