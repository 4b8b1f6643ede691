import { createCreditExpiryActivities } from '../temporal/credit-expiry/activities';
import { CREDITS_QUEUE } from '../temporal/credit-expiry/config';
import { reposOf } from './deps';
import type { QueueDefinition } from './queue';

export const creditsQueue: QueueDefinition = {
  key: 'credits',
  taskQueue: CREDITS_QUEUE,
  activities: (deps) =>
    createCreditExpiryActivities({
      models: deps.db.models,
      ledger: reposOf(deps).ledger,
      sessionTtlSeconds: deps.config.sessionNonceTtlSeconds,
    }),
};
