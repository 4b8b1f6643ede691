import { PING_QUEUE } from '../ping/config';

/** The healer runs on the system queue every worker process serves. */
export const RUN_HEAL_QUEUE = PING_QUEUE;
export const RUN_HEAL_SCHEDULE_ID = 'webhook-run-healer';
export const RUN_HEAL_EVERY = '1 minute';
/** Runs read per page; pages per healer run are bounded too, the next run goes on from the oldest again. */
export const RUN_HEAL_BATCH = 100;
export const RUN_HEAL_MAX_PAGES = 10;
export const RUN_HEAL_TIMEOUTS = { startToCloseTimeout: '1 minute' } as const;
export const RUN_HEAL_RETRY = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  maximumAttempts: 10,
} as const;
