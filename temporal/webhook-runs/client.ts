import {
  isGrpcServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
} from '@temporalio/client';
import type { PayloadConverter } from '@temporalio/common';
import { temporal as proto } from '@temporalio/proto';
import type { RunEnd, RunEngine, RunStartRequest } from '../../shared/webhook-runs/engine';
import { writtenOf } from '../../shared/webhook-runs/run-writes';
import { TERMINAL_STATUSES } from '../../shared/webhook-runs/types';
import { NODE_TYPES, type NodeType } from '../../shared/workflows/nodes/index';
import type { TemporalHandle } from '../connection';
import { SA } from '../search-attributes';
import { startCallbackReplay } from '../webhook-callbacks/client';
import { CALLBACK_QUEUE } from '../webhook-callbacks/config';
import { type CallbackProgress, callbackProgressQuery } from '../webhook-callbacks/definitions';
import { NODE_QUEUES, RUN_QUEUE, UNTRUSTED_NODE_QUEUES } from './config';
import { type RunProgress, runProgressQuery } from './definitions';
import type { RunQueues } from './types';
import { webhookRun } from './workflows';

/** A request must not hang on an unreachable Temporal: fail within this, and the caller answers 503. */
const START_DEADLINE_MS = 5000;

export type { RunStartRequest };

/** Each node kind's queue as this process names it (tests and deployments prefix them). */
export function nodeQueuesOf(
  temporal: TemporalHandle,
  nodes: Readonly<Record<NodeType, string>>,
): Record<NodeType, string> {
  return Object.fromEntries(NODE_TYPES.map((type) => [type, temporal.queue(nodes[type])])) as Record<NodeType, string>;
}

/** Where a run's parts execute: an untrusted graph's nodes on the untrusted node queues. */
export function runQueues(temporal: TemporalHandle, untrusted = false): RunQueues {
  const nodes = untrusted ? UNTRUSTED_NODE_QUEUES : NODE_QUEUES;
  return { runs: temporal.queue(RUN_QUEUE), ...nodeQueuesOf(temporal, nodes) };
}

/** Starts a run's workflow (id = run id) once: true; a second start of the same run finds the first: false. */
export async function startWebhookRun(temporal: TemporalHandle, s: RunStartRequest): Promise<boolean> {
  try {
    await temporal.client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      temporal.client.workflow.start(webhookRun, {
        taskQueue: temporal.queue(RUN_QUEUE),
        workflowId: s.runId,
        args: [
          {
            runId: s.runId,
            workflowId: s.workflowId,
            groupId: s.groupId,
            nodes: s.nodes,
            edges: s.edges,
            queues: runQueues(temporal, s.untrusted),
            callback: s.callback
              ? {
                  queue: temporal.queue(CALLBACK_QUEUE),
                  timeoutMs: s.callback.timeoutMs,
                  schedule: {
                    maxAttempts: s.callback.maxAttempts,
                    initialIntervalMs: s.callback.initialIntervalMs,
                    backoffCoefficient: s.callback.backoffCoefficient,
                    maxIntervalMs: s.callback.maxIntervalMs,
                    jitter: s.callback.jitter,
                  },
                }
              : null,
            nodeStartTimeoutMs: s.nodeStartTimeoutMs,
            request: { prompt: s.prompt, metadata: s.metadata },
          },
        ],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: [
          { key: SA.flowKind, value: 'webhook_run' },
          { key: SA.webhookWorkflowId, value: s.workflowId },
          { key: SA.agentGroupId, value: s.groupId },
          { key: SA.flowStatus, value: 'queued' },
        ],
      }),
    );
    return true;
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    return false;
  }
}

/** Whether the namespace holds an execution of the run (open or closed, within retention). */
export async function runHasExecution(temporal: TemporalHandle, runId: string): Promise<boolean> {
  try {
    await temporal.client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      temporal.client.workflow.getHandle(runId).describe(),
    );
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** Requests cancellation of a run's workflow; false when there is no open execution. */
export async function cancelWebhookRun(temporal: TemporalHandle, runId: string): Promise<boolean> {
  try {
    await temporal.client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      temporal.client.workflow.getHandle(runId).cancel(),
    );
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** Waits up to waitMs for a run's workflow to close (however it closes). */
export async function waitForRunClose(temporal: TemporalHandle, runId: string, waitMs: number): Promise<boolean> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), waitMs);
  try {
    await temporal.client.withAbortSignal(abort.signal, () => temporal.client.workflow.getHandle(runId).result());
    return true;
  } catch {
    return !abort.signal.aborted;
  } finally {
    clearTimeout(timer);
  }
}

/** Where a run's callback delivery is (attempts, waits, status): a query of the run's own workflow. */
export function runCallbackProgress(temporal: TemporalHandle, runId: string): Promise<CallbackProgress> {
  return temporal.client.workflow.getHandle(runId).query(callbackProgressQuery);
}

export function runProgress(temporal: TemporalHandle, runId: string): Promise<RunProgress> {
  return temporal.client.workflow.getHandle(runId).query(runProgressQuery);
}

const EventType = proto.api.enums.v1.EventType;
const CLOSE_EVENTS: ReadonlySet<number> = new Set([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
]);
const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_STATUSES);
/** gRPC NOT_FOUND: the namespace has no execution with this id. */
const GRPC_NOT_FOUND = 5;

/**
 * Whether this history event says the stored run is terminal: the run workflow upserts FlowStatus
 * to the terminal status right after its finishRun write (in the same workflow task completion),
 * and any close of the execution means the record is final too (a run that ended before its
 * workflow began closes at once).
 */
export function endsRun(event: proto.api.history.v1.IHistoryEvent): boolean {
  if (event.eventType != null && CLOSE_EVENTS.has(event.eventType)) return true;
  const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
  const status = fields?.[SA.flowStatus.name]?.data;
  if (!status) return false;
  try {
    return TERMINAL.has(JSON.parse(Buffer.from(status).toString('utf8')) as string);
  } catch {
    return false;
  }
}

/**
 * What the run's workflow closed with (its result, or its failure's details), when this close
 * event carries one; null for a close without it (cancelled, terminated, timed out).
 */
export function closeValue(event: proto.api.history.v1.IHistoryEvent, converter: PayloadConverter): unknown {
  const payload =
    event.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0] ??
    event.workflowExecutionFailedEventAttributes?.failure?.applicationFailureInfo?.details?.payloads?.[0];
  if (!payload) return null;
  try {
    return converter.fromPayload(payload);
  } catch {
    return null;
  }
}

/**
 * Waits for a run's end as its workflow history shows it: one long poll of the history at a
 * time (the server answers when new events land), no store read. 'unknown' when there is no
 * execution to watch; rejects with the signal's reason when aborted. When the close lands with
 * the end (a run without a callback closes in the task that records its end) and no cancel
 * request reached the execution, `written` is the outcome and write times the workflow closed with.
 */
export async function awaitRunEnd(
  temporal: TemporalHandle,
  runId: string,
  signal: AbortSignal,
  watching?: () => void,
): Promise<RunEnd> {
  const req: proto.api.workflowservice.v1.IGetWorkflowExecutionHistoryRequest = {
    namespace: temporal.namespace,
    execution: { workflowId: runId },
    waitNewEvent: true,
    skipArchival: true,
    historyEventFilterType: proto.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT,
  };
  // A cancel request may come with a cancel record written elsewhere: then the store has the last word.
  let cancelRequested = false;
  for (;;) {
    signal.throwIfAborted();
    let res: proto.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse;
    try {
      res = await temporal.connection.withAbortSignal(signal, () =>
        temporal.connection.workflowService.getWorkflowExecutionHistory(req),
      );
    } catch (err) {
      signal.throwIfAborted();
      if (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND) return { end: 'unknown' };
      throw err;
    }
    const events = res.history?.events ?? [];
    if (events.some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED))
      cancelRequested = true;
    if (events.some(endsRun)) {
      const close = events.find((e) => e.eventType != null && CLOSE_EVENTS.has(e.eventType));
      const value =
        close && !cancelRequested
          ? closeValue(close, temporal.client.options.loadedDataConverter.payloadConverter)
          : null;
      return { end: 'ended', written: writtenOf(value) };
    }
    // An empty token: the history is complete and no end was in it (cannot happen for a closed run).
    if (!res.nextPageToken?.length) return { end: 'unknown' };
    // The history so far (the first answer holds every event recorded) has no end.
    watching?.();
    req.nextPageToken = res.nextPageToken;
  }
}

/** The run service's port onto this process's Temporal client. */
export function runEngine(temporal: TemporalHandle): RunEngine {
  return {
    start: (run) => startWebhookRun(temporal, run),
    hasExecution: (runId) => runHasExecution(temporal, runId),
    cancel: (runId) => cancelWebhookRun(temporal, runId),
    replayCallback: (replay) => startCallbackReplay(temporal, replay),
    awaitEnd: (runId, signal, watching) => awaitRunEnd(temporal, runId, signal, watching),
  };
}
