import { ActivityCancellationType, type ActivityOptions } from '@temporalio/common';
import { SESSION_TOOL_FINAL_CODES } from '../../shared/workflows/nodes/tool/kind';

/** Wallet workflow sessions run on this queue. */
export const SESSIONS_QUEUE = 'workflow-sessions-v1';

/** Store writes: short attempts, retried with backoff until the store answers again. */
export const SESSION_STORE_ACTIVITY_OPTIONS = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
} as const;

/** How long a client call to a session (start, query, update) may take before the API answers 503. */
export const SESSION_CALL_DEADLINE_MS = 5000;

/**
 * Paid tool nodes of a session (node-tool queue): charged at most once per session and node by
 * the invoker, so a retry after a lost worker never pays twice. They heartbeat, so `end` during
 * the call cancels it (the vendor call is aborted, the hold released) and the session waits for
 * that before it records its final state.
 */
export const SESSION_TOOL_NODE_OPTIONS: ActivityOptions = {
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: SESSION_TOOL_FINAL_CODES,
  },
};
