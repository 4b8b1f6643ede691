/** Wallet workflow sessions run on this queue. */
export const SESSIONS_QUEUE = 'workflow-sessions-v1';

/** Store writes: short attempts, retried with backoff until the store answers again. */
export const SESSION_STORE_ACTIVITY_OPTIONS = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
} as const;

/** How long a client call to a session (start, query, update) may take before the API answers 503. */
export const SESSION_CALL_DEADLINE_MS = 5000;
