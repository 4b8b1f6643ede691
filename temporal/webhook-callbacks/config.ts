import type { ActivityOptions } from '@temporalio/common';

export const CALLBACK_QUEUE = 'callbacks-v1';

/**
 * One HTTP attempt per activity execution: the schedule between attempts is the workflow's
 * (durable timers, exponential backoff with jitter, Retry-After; see shared/webhook-runs/callback-schedule.ts).
 * The activity's own retries only cover a lost worker or a store hiccup, never the receiver.
 */
export function attemptOptions(timeoutMs: number): ActivityOptions {
  return {
    startToCloseTimeout: timeoutMs + 15_000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
  };
}
