import { createWorkflowSessionActivities } from '../temporal/workflow-session/activities';
import { SESSIONS_QUEUE } from '../temporal/workflow-session/config';
import { reposOf } from './deps';
import type { QueueDefinition } from './queue';

/** Wallet workflow sessions (their nodes run on the runs engine's node queues). */
export const sessionsQueue: QueueDefinition = {
  key: 'sessions',
  taskQueue: SESSIONS_QUEUE,
  activities: (deps) => createWorkflowSessionActivities({ sessions: reposOf(deps).workflowSessions }),
};
