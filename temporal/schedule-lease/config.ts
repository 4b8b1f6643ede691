export const SCHEDULE_LEASE_QUEUE = 'schedule-leases-v1';

/** Expiring a lease is one insert; retried until the store answers. */
export const EXPIRE_OPTIONS = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
} as const;
