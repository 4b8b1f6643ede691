import { createCreditExpiryActivities } from '../temporal/credit-expiry/activities';
import { CREDITS_QUEUE } from '../temporal/credit-expiry/config';
import { domainOf } from './deps';
import type { QueueDefinition } from './queue';

export const creditsQueue: QueueDefinition = {
  key: 'credits',
  taskQueue: CREDITS_QUEUE,
  activities: (deps) => createCreditExpiryActivities({ models: deps.db.models, ledger: domainOf(deps).ledger, sessionTtlSeconds: deps.config.sessionNonceTtlSeconds }),
};
