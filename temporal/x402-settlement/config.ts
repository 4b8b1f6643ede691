export const SETTLEMENT_QUEUE = 'settlements-v1';

/**
 * Chain calls are slow and flaky: short attempts, retried with backoff for as long as it takes
 * (the payer's money may already have moved, so the effect must land eventually).
 */
export const SETTLE_OPTIONS = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
} as const;
