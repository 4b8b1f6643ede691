import { createToolHoldsActivities } from '../temporal/tool-holds/activities';
import { TOOLS_QUEUE } from '../temporal/tool-holds/config';
import { reposOf } from './deps';
import type { QueueDefinition } from './queue';

export const toolsQueue: QueueDefinition = {
  key: 'tools',
  taskQueue: TOOLS_QUEUE,
  activities: (deps) => createToolHoldsActivities({ ledger: reposOf(deps).ledger }),
};
