import { createModelNodeActivities } from '../temporal/webhook-runs/activities/model';
import { NODE_QUEUES } from '../temporal/webhook-runs/config';
import { domainOf } from './deps';
import type { QueueDefinition } from './queue';

/** Model nodes, paid from the run's workspace or the session's wallet; without MODEL_API_URL they end runs as setup_required (the queue still serves). */
export const nodeModelQueue: QueueDefinition = {
  key: 'node-model',
  taskQueue: NODE_QUEUES.model,
  // Heartbeats reach the server at least every second, so a cancel reaches the HTTP call within ~1 s.
  workerOptions: { maxHeartbeatThrottleInterval: '1 second' },
  activities: (deps) => createModelNodeActivities({ models: deps.db.models, ledger: domainOf(deps).ledger, identity: deps.identity, model: deps.config.model }),
};
