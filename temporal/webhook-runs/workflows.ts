import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  isCancellation,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import {
  nodeOutputPreview,
  type RunNodeRecord,
  type RunOutcome,
  type RunResult,
  type RunStatus,
  withWorker,
} from '../../shared/webhook-runs/types';
import type { NodeResult } from '../../shared/workflows/nodes/call';
import {
  INLINE_MATCH_BUDGET,
  inlineCost,
  isPureNode,
  type PureNode,
  runPureNode,
} from '../../shared/workflows/pure-nodes';
import type { WorkflowNode } from '../../shared/workflows/types';
import { asText, nodeActivities, NodeFailed, nodeFailure, runGraph } from '../graph-engine/engine';
import { SA } from '../search-attributes';
import { type CallbackProgress, callbackProgressQuery } from '../webhook-callbacks/definitions';
import { callbackWorkflowId } from '../webhook-callbacks/ids';
import { callbackDeliveryWorkflow, deliverCallback } from '../webhook-callbacks/workflows';
import { workflowNow } from '../workflow-clock';
import type { RunFinish, RunStoreActivities, StartedRun } from './activities/store';
import { DEFAULT_NODE_START_TIMEOUT_MS, STORE_OPTIONS } from './config';
import { type RunProgress, runProgressQuery } from './definitions';
import type { WebhookRunInput } from './types';

export type { WebhookRunInput };

/**
 * What tells the run workflow types apart. A type's shape is fixed once it is registered (its
 * executions and recorded histories replay against it); a change to the commands a run emits is
 * a new shape under a new type (docs/architecture.md, "Workflow versions").
 */
export interface RunShape {
  /** The run record's writes as local activities (no task dispatch of their own), or as activities on the runs queue. */
  storeWrites: 'local' | 'runs-queue';
  /** The callback delivered by the run itself, its first attempt in the task that records the end, or by a child workflow. */
  callback: 'in-run' | 'child-workflow';
  /** Template and condition nodes evaluated inside the workflow task (within a regex budget), or as activities on their queues. */
  pureNodes: 'in-task' | 'activities';
  /**
   * When the record goes queued → running: as the run's first step, or only before the first node
   * dispatched to a queue, when the input carries the request (runs started before it did take
   * the first way). A run that dispatches nothing writes its record once, queued → its end.
   */
  startWrite: 'first' | 'before-dispatch';
}

export const CURRENT_RUN_SHAPE: RunShape = {
  storeWrites: 'local',
  callback: 'in-run',
  pureNodes: 'in-task',
  startWrite: 'before-dispatch',
};

/** The record had already ended when this execution came to write it (e.g. marked failed when the start looked lost). */
class RunEnded extends Error {
  constructor(readonly status: RunStatus) {
    super(`the run was already ${status}`);
  }
}

/**
 * One webhook run (workflow id = run id), the type every new run starts as. Marks the record
 * running, runs the graph wave by wave (pure nodes in the workflow task, model and tool nodes as
 * activities on their kind's queue; conditions pick branches), writes the terminal state, delivers
 * the callback when there is a callback_url, and closes the execution to match: Completed, Failed
 * (failed, setup_required; the failure type is the error code) or Canceled. FlowStatus always
 * equals the stored run status. A one-node run costs what a bare one-activity workflow does.
 * The types runs started as before are in legacy-workflows.ts.
 */
export function webhookRun(input: WebhookRunInput): Promise<RunResult> {
  return runWebhookRunAs(input, CURRENT_RUN_SHAPE);
}

/** A webhook run of `shape`: each registered run type is this with its shape fixed (legacy-workflows.ts). */
export async function runWebhookRunAs(input: WebhookRunInput, shape: RunShape): Promise<RunResult> {
  const progress: RunProgress = {
    status: 'queued',
    nodes: Object.fromEntries(input.nodes.map((n) => [n.id, 'pending'])),
  };
  setHandler(runProgressQuery, () => progress);
  const callbackProgress: CallbackProgress = { attempts: 0, waits: [], status: 'pending' };
  if (shape.callback === 'in-run' && input.callback) setHandler(callbackProgressQuery, () => callbackProgress);
  const store =
    shape.storeWrites === 'local'
      ? proxyLocalActivities<RunStoreActivities>(STORE_OPTIONS)
      : proxyActivities<RunStoreActivities>({ taskQueue: input.queues.runs, ...STORE_OPTIONS });
  // Every node's schedule-to-start is bounded: a kind whose queue no worker serves fails `node_queue_unserved`.
  const run = nodeActivities((type) => input.queues[type], {
    scheduleToStartTimeout: input.nodeStartTimeoutMs ?? DEFAULT_NODE_START_TIMEOUT_MS,
  });
  const records: RunNodeRecord[] = [];
  // Timings and output previews only add data to the records the run already writes: no command
  // changes, so executions recorded before them replay as they were.
  const nodeStarts = new Map<string, string>();
  let previewsUsed = 0;
  const timing = (id: string) => {
    const start = nodeStarts.get(id);
    return start ? { started_at: start, ended_at: new Date(workflowNow()).toISOString() } : {};
  };
  let outcome: RunOutcome;
  let cancelled: unknown;
  /** When this run's own writes made the record running and terminal (results recorded earlier carry neither). */
  let startedAt: string | null = null;
  let finishedAt: string | null = null;
  const alreadyEnded = (status: RunStatus): RunOutcome => {
    progress.status = status;
    return {
      status: 'failed',
      response_text: null,
      model: null,
      error_code: 'run_already_ended',
      error_message: new RunEnded(status).message,
      nodes: [],
    };
  };

  // The request comes with the input, so a run whose nodes all evaluate in this task needs no
  // write before its end; the first node dispatched to a queue writes queued → running first.
  const lazyStart = shape.startWrite === 'before-dispatch' && input.request !== undefined;
  let started: StartedRun | undefined;
  let starting: Promise<StartedRun> | undefined;
  const begin = (): Promise<StartedRun> =>
    (starting ??= store.startRun(input.runId).then((s) => {
      if (s.status !== 'running') throw new RunEnded(s.status);
      startedAt = s.started_at ?? null;
      progress.status = 'running';
      upsertSearchAttributes([{ key: SA.flowStatus, value: 'running' }]);
      started = s;
      return s;
    }));

  try {
    if (!lazyStart) await begin();
    const request = input.request ?? { prompt: started!.prompt, metadata: started!.metadata };

    let matchBudget = INLINE_MATCH_BUDGET;
    /** Whether a pure node is evaluated here (within the run's regex budget) or dispatched to its queue. */
    const inlineHere = (
      node: WorkflowNode,
      scope: { prompt: string; outputs: Record<string, unknown>; metadata: Record<string, unknown> },
    ): node is PureNode => {
      if (shape.pureNodes !== 'in-task' || !isPureNode(node)) return false;
      const cost = inlineCost(node, scope);
      if (cost > matchBudget) return false;
      matchBudget -= cost;
      return true;
    };

    const end = await runGraph({
      nodes: input.nodes,
      edges: input.edges,
      mode: 'waves',
      async execute(node, outputs): Promise<NodeResult> {
        const scope = { prompt: request.prompt, outputs, metadata: request.metadata };
        // Before the start write the worker is named by the write that follows (same task, same worker).
        if (inlineHere(node, scope)) return { output: runPureNode(node, scope), worker: started?.worker ?? '' };
        const start = await begin();
        return run[node.type]({
          runId: input.runId,
          node,
          prompt: start.prompt,
          outputs,
          metadata: start.metadata,
          workspaceId: start.workspaceId,
          budgetId: start.budgetId,
        });
      },
      queueOf: (node) => input.queues[node.type],
      hooks: {
        skipped(node) {
          progress.nodes[node.id] = 'skipped';
          records.push({ id: node.id, type: node.type, status: 'skipped' });
        },
        running(node) {
          progress.nodes[node.id] = 'running';
          nodeStarts.set(node.id, new Date(workflowNow()).toISOString());
        },
        completed(node, result) {
          progress.nodes[node.id] = 'done';
          const { used, ...preview } = nodeOutputPreview(result.output, previewsUsed);
          previewsUsed = used;
          records.push({
            id: node.id,
            type: node.type,
            status: 'completed',
            worker: result.worker,
            ...(result.credits_charged === undefined
              ? {}
              : { credits_charged: result.credits_charged, transaction_id: result.transaction_id }),
            ...timing(node.id),
            ...preview,
          });
        },
        failed(node, f) {
          progress.nodes[node.id] = 'failed';
          records.push({
            id: node.id,
            type: node.type,
            status: f ? (f.setupRequired ? 'setup_required' : 'failed') : 'cancelled',
            ...(f ? { error_code: f.code } : {}),
            ...timing(node.id),
          });
        },
      },
    });
    // A run has no stop(): it ends completed or failed (a cancellation is its failure).
    if (end.ended === 'failed') throw end.error instanceof RunEnded ? end.error : (end.failure ?? end.error);
    if (end.ended !== 'completed') throw new Error(`the graph ended ${end.ended}`);
    records.sort((a, b) => end.order.indexOf(a.id) - end.order.indexOf(b.id));
    const final = end.last;
    const model = end.model;
    outcome = {
      status: 'completed',
      response_text: final ? asText(final.output) : null,
      model,
      error_code: null,
      error_message: null,
      nodes: records,
    };
    // Nothing awaited a command, so a cancel that came with this task has not been thrown anywhere.
    if (!started && CancellationScope.current().consideredCancelled)
      throw new CancelledFailure('the run was cancelled on request');
  } catch (err) {
    if (err instanceof RunEnded) return alreadyEnded(err.status);
    if (isCancellation(err)) {
      cancelled = err;
      outcome = {
        status: 'cancelled',
        response_text: null,
        model: null,
        error_code: 'cancelled',
        error_message: 'the run was cancelled on request',
        nodes: records,
      };
    } else if (err instanceof NodeFailed) {
      outcome = {
        status: err.setupRequired ? 'setup_required' : 'failed',
        response_text: null,
        model: null,
        error_code: err.code,
        error_message: err.message,
        nodes: records,
      };
    } else {
      const f = nodeFailure(err);
      outcome = {
        status: 'failed',
        response_text: null,
        model: null,
        error_code: f.code,
        error_message: f.message,
        nodes: records,
      };
    }
  }

  // Whatever happens now (even a cancel arriving this instant), the record and the callback follow.
  const ended = await CancellationScope.nonCancellable(async () => {
    if (started) outcome.nodes = withWorker(outcome.nodes, started.worker);
    // A run cancelled before it started keeps no started_at, as when its start write was cancelled.
    if (started || !lazyStart || cancelled) {
      const finished: RunFinish | RunStatus = await store.finishRun(input.runId, outcome);
      finishedAt = typeof finished === 'string' ? null : finished.finished_at;
    } else {
      const written = await store.finishQueuedRun(input.runId, outcome);
      if (!written.finished_at) return alreadyEnded(written.status);
      outcome.nodes = withWorker(outcome.nodes, written.worker);
      startedAt = finishedAt = written.finished_at;
    }
    progress.status = outcome.status;
    upsertSearchAttributes([{ key: SA.flowStatus, value: outcome.status }]);
    if (!input.callback) return;
    const delivery = {
      runId: input.runId,
      groupId: input.groupId,
      schedule: input.callback.schedule,
      timeoutMs: input.callback.timeoutMs,
    };
    if (shape.callback === 'in-run') {
      await deliverCallback(delivery, callbackProgress, input.callback.queue);
      return;
    }
    await startChild(callbackDeliveryWorkflow, {
      workflowId: callbackWorkflowId(input.runId),
      taskQueue: input.callback.queue,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [delivery],
      typedSearchAttributes: [
        { key: SA.flowKind, value: 'webhook_callback' },
        { key: SA.agentGroupId, value: input.groupId },
        { key: SA.flowStatus, value: 'pending' },
      ],
    });
  });

  if (ended) return ended;
  if (cancelled) throw cancelled;
  const result: RunResult =
    startedAt && finishedAt ? { ...outcome, written: { started_at: startedAt, finished_at: finishedAt } } : outcome;
  if (outcome.status !== 'completed')
    throw ApplicationFailure.nonRetryable(
      outcome.error_message ?? outcome.status,
      outcome.error_code ?? outcome.status,
      result,
    );
  return result;
}
