/** Both job flows (reservation timers and verifications) run on this queue. */
export const JOBS_QUEUE = 'jobs-v1';

/** Store work: short attempts, retried with backoff until the store answers again. */
export const JOB_ACTIVITY_OPTIONS = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
} as const;

/** An approved completion the platform account cannot pay yet is retried this often (and on job:fund). */
export const PAYMENT_RETRY_INTERVAL_MS = 15 * 60 * 1000;
