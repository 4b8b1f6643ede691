import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { SessionEndReason, SessionState } from '../../shared/workflow-sessions/types';

/** fetch: the session's state and results so far. */
export const sessionStateQuery = defineQuery<SessionState>('workflowSessionState');
/** Activity from the wallet (fetch, resume): restarts the idle timer. */
export const sessionTouchSignal = defineSignal('workflowSessionTouch');
/** end: the session ends, writes its final state to the store, and answers with it. */
export const endSessionUpdate = defineUpdate<SessionState, [{ reason: SessionEndReason }]>('workflowSessionEnd');
