import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import type { SessionEngine } from '../../shared/workflow-sessions/engine';
import type { SessionEndReason, SessionInput, SessionState } from '../../shared/workflow-sessions/types';
import type { TemporalHandle } from '../connection';
import { SA } from '../search-attributes';
import { nodeQueuesOf } from '../webhook-runs/client';
import { UNTRUSTED_NODE_QUEUES } from '../webhook-runs/config';
import { SESSION_CALL_DEADLINE_MS, SESSIONS_QUEUE } from './config';
import { endSessionUpdate, sessionStateQuery, sessionTouchSignal } from './definitions';
import { sessionWorkflowId } from './ids';
import { workflowSessionWorkflow } from './workflows';

const within = <T>(temporal: TemporalHandle, fn: () => Promise<T>) =>
  temporal.client.withDeadline(Date.now() + SESSION_CALL_DEADLINE_MS, fn);

/** Any wallet may start a session of a published graph: its nodes always run on the untrusted queues. */
export function sessionQueues(temporal: TemporalHandle): SessionInput['queues'] {
  return { sessions: temporal.queue(SESSIONS_QUEUE), ...nodeQueuesOf(temporal, UNTRUSTED_NODE_QUEUES) };
}

/** Starts the session's workflow once (a second start with the same id finds the first). */
export async function startSessionWorkflow(
  temporal: TemporalHandle,
  input: Omit<SessionInput, 'queues'>,
): Promise<void> {
  try {
    await within(temporal, () =>
      temporal.client.workflow.start(workflowSessionWorkflow, {
        taskQueue: temporal.queue(SESSIONS_QUEUE),
        workflowId: sessionWorkflowId(input.sessionId),
        args: [{ ...input, queues: sessionQueues(temporal) }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: [
          { key: SA.flowKind, value: 'workflow_session' },
          { key: SA.wallet, value: input.wallet },
          { key: SA.webhookWorkflowId, value: input.workflowId },
          { key: SA.flowStatus, value: 'active' },
        ],
      }),
    );
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** The state and results so far (a query: no history event). */
export function querySession(temporal: TemporalHandle, sessionId: string): Promise<SessionState> {
  return within(temporal, () =>
    temporal.client.workflow.getHandle(sessionWorkflowId(sessionId)).query(sessionStateQuery),
  );
}

/** The wallet did something with the session: its idle timer starts again. */
export async function touchSession(temporal: TemporalHandle, sessionId: string): Promise<void> {
  await within(temporal, () =>
    temporal.client.workflow.getHandle(sessionWorkflowId(sessionId)).signal(sessionTouchSignal),
  );
}

/** Ends the session and answers with its final state (written to the store before the answer). */
export function endSession(
  temporal: TemporalHandle,
  sessionId: string,
  reason: SessionEndReason = 'ended_by_wallet',
): Promise<SessionState> {
  return temporal.client.workflow
    .getHandle(sessionWorkflowId(sessionId))
    .executeUpdate(endSessionUpdate, { args: [{ reason }] });
}

/** The session service's port onto this process's Temporal client. */
export function sessionEngine(temporal: TemporalHandle): SessionEngine {
  return {
    start: (input) => startSessionWorkflow(temporal, input),
    query: (sessionId) => querySession(temporal, sessionId),
    touch: (sessionId) => touchSession(temporal, sessionId),
    end: (sessionId, reason) => endSession(temporal, sessionId, reason),
  };
}
