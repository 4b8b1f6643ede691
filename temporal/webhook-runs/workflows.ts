import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  TimeoutFailure,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { RunNodeRecord, RunOutcome } from '../../shared/runs/types';
import { nextDecisions, topoOrder, type NodeState } from '../../shared/workflows/graph';
import { INLINE_MATCH_BUDGET, inlineCost, isPureNode, NodeError, runPureNode, type PureNode } from '../../shared/workflows/pure-nodes';
import { RenderTooLarge } from '../../shared/workflows/template';
import type { WorkflowNode } from '../../shared/workflows/types';
import { callbackProgressQuery, type CallbackProgress } from '../webhook-callbacks/definitions';
import { callbackDeliveryWorkflow, deliverCallback } from '../webhook-callbacks/workflows';
import { callbackWorkflowId } from '../webhook-callbacks/ids';
import { SA } from '../search-attributes';
import type { ConditionNodeActivities } from './activities/condition';
import type { ModelNodeActivities } from './activities/model';
import type { RunStoreActivities } from './activities/store';
import type { TemplateNodeActivities } from './activities/template';
import { CONDITION_NODE_OPTIONS, DEFAULT_NODE_START_TIMEOUT_MS, MODEL_NODE_OPTIONS, STORE_OPTIONS, TEMPLATE_NODE_OPTIONS, TOOL_NODE_OPTIONS } from './config';
import { runProgressQuery, type RunProgress } from './definitions';
import type { ToolNodeActivities } from './activities/tool';
import type { NodeCall, NodeResult, RunQueues, WebhookRunInput } from './types';

export type { WebhookRunInput };

/**
 * One activity per node kind, each on its own queue with its own timeouts and retries. A node
 * no worker picks up within `startMs` (its queue is unserved) fails `node_queue_unserved`.
 */
function nodeRunners(q: RunQueues, startMs: number): Record<WorkflowNode['type'], (call: NodeCall<any>) => Promise<NodeResult>> {
  const scheduleToStartTimeout = startMs;
  return {
    template: proxyActivities<TemplateNodeActivities>({ taskQueue: q.template, scheduleToStartTimeout, ...TEMPLATE_NODE_OPTIONS }).runTemplateNode,
    condition: proxyActivities<ConditionNodeActivities>({ taskQueue: q.condition, scheduleToStartTimeout, ...CONDITION_NODE_OPTIONS }).runConditionNode,
    model: proxyActivities<ModelNodeActivities>({ taskQueue: q.model, scheduleToStartTimeout, ...MODEL_NODE_OPTIONS }).runModelNode,
    tool: proxyActivities<ToolNodeActivities>({ taskQueue: q.tool, scheduleToStartTimeout, ...TOOL_NODE_OPTIONS }).runToolNode,
  };
}

class NodeFailed extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly setupRequired: boolean,
  ) {
    super(message);
  }
}

/** The error code and message of a failed node activity (its ApplicationFailure type is the code). */
function nodeFailure(err: unknown, queue?: string): NodeFailed {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof NodeError) return new NodeFailed(cause.code, cause.message, false);
  if (cause instanceof RenderTooLarge) return new NodeFailed(cause.name, cause.message, false);
  if (cause instanceof ApplicationFailure) return new NodeFailed(cause.type ?? 'node_failed', cause.message, cause.type === 'setup_required');
  if (cause instanceof TimeoutFailure && cause.timeoutType === 'SCHEDULE_TO_START') {
    return new NodeFailed('node_queue_unserved', `no worker took the node from task queue ${queue ?? '(unknown)'} in time: is a worker serving it?`, false);
  }
  if (cause instanceof TimeoutFailure) return new NodeFailed('node_timeout', `the node timed out (${cause.timeoutType})`, false);
  return new NodeFailed('node_failed', (cause as Error)?.message ?? 'node failed', false);
}

function asText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * One webhook run (workflow id = run id). Marks the record running, runs the graph wave by wave
 * (each node an activity on its kind's queue; conditions pick branches), writes the terminal
 * state, delivers the callback when there is a callback_url, and closes the execution to match:
 * Completed, Failed (failed, setup_required; the failure type is the error code) or Canceled.
 * FlowStatus always equals the stored run status.
 *
 * The record writes are local activities (no task dispatch of their own) and the callback is
 * delivered by this workflow, its first attempt scheduled in the task that records the end, so
 * a one-node run costs what a bare one-activity workflow does. A new workflow type rather than
 * `patched()`, which would add a marker and a search-attribute upsert to every run.
 */
export function webhookRunWorkflowV2(input: WebhookRunInput): Promise<RunOutcome> {
  return runGraph(input, 2);
}

/**
 * webhookRunWorkflowV2, with template and condition nodes (pure, bounded: shared/workflows/pure-nodes)
 * evaluated inside the workflow task instead of as activities: a run dispatches one task per node
 * that does I/O (model, tool) and none for the rest, so a run of pure nodes is one workflow task.
 * A new type so that V2 executions in flight and their histories keep replaying.
 */
export function webhookRunWorkflowV3(input: WebhookRunInput): Promise<RunOutcome> {
  return runGraph(input, 3);
}

/**
 * The first version, for executions started before webhookRunWorkflowV2 and their histories:
 * store writes as activities on the runs queue, the callback as a child workflow.
 */
export function webhookRunWorkflow(input: WebhookRunInput): Promise<RunOutcome> {
  return runGraph(input, 1);
}

async function runGraph(input: WebhookRunInput, version: 1 | 2 | 3): Promise<RunOutcome> {
  const atTheFloor = version >= 2;
  const inline = version >= 3;
  const progress: RunProgress = { status: 'queued', nodes: Object.fromEntries(input.nodes.map((n) => [n.id, 'pending'])) };
  setHandler(runProgressQuery, () => progress);
  const callbackProgress: CallbackProgress = { attempts: 0, waits: [], status: 'pending' };
  if (atTheFloor && input.callback) setHandler(callbackProgressQuery, () => callbackProgress);
  const store = atTheFloor ? proxyLocalActivities<RunStoreActivities>(STORE_OPTIONS) : proxyActivities<RunStoreActivities>({ taskQueue: input.queues.runs, ...STORE_OPTIONS });
  const run = nodeRunners(input.queues, input.nodeStartTimeoutMs ?? DEFAULT_NODE_START_TIMEOUT_MS);
  const records: RunNodeRecord[] = [];
  const byId = new Map(input.nodes.map((n) => [n.id, n]));
  let outcome: RunOutcome;
  let cancelled: unknown;

  try {
    const start = await store.startRun(input.runId);
    if (start.status !== 'running') {
      // The record ended before this execution began (e.g. marked failed when the start looked lost).
      progress.status = start.status;
      return { status: 'failed', response_text: null, model: null, error_code: 'run_already_ended', error_message: `the run was already ${start.status}`, nodes: [] };
    }
    progress.status = 'running';
    upsertSearchAttributes([{ key: SA.flowStatus, value: 'running' }]);

    const order = topoOrder(input.nodes.map((n) => n.id), input.edges)!;
    const state: Record<string, NodeState> = Object.fromEntries(order.map((id) => [id, 'pending']));
    const outputs: Record<string, unknown> = {};
    const conditions: Record<string, boolean> = {};
    let last: { id: string; output: unknown } | null = null;
    let model: string | null = null;

    let matchBudget = INLINE_MATCH_BUDGET;
    /** Whether a pure node is evaluated here (V3, within the run's regex budget) or dispatched to its queue. */
    const inlineHere = (node: WorkflowNode, scope: { prompt: string; outputs: Record<string, unknown>; metadata: Record<string, unknown> }): node is PureNode => {
      if (!inline || !isPureNode(node)) return false;
      const cost = inlineCost(node, scope);
      if (cost > matchBudget) return false;
      matchBudget -= cost;
      return true;
    };

    for (let wave = nextDecisions(order, input.edges, state, conditions); wave.length; wave = nextDecisions(order, input.edges, state, conditions)) {
      for (const d of wave.filter((w) => !w.run)) {
        state[d.id] = 'skipped';
        progress.nodes[d.id] = 'skipped';
        records.push({ id: d.id, type: byId.get(d.id)!.type, status: 'skipped' });
      }
      const runnable = wave.filter((w) => w.run).map((w) => byId.get(w.id)!);
      const settled = await Promise.allSettled(
        runnable.map(async (node): Promise<NodeResult> => {
          progress.nodes[node.id] = 'running';
          const scope = { prompt: start.prompt, outputs, metadata: start.metadata };
          if (inlineHere(node, scope)) return { output: runPureNode(node, scope), worker: start.worker };
          return run[node.type]({ runId: input.runId, node, prompt: start.prompt, outputs, metadata: start.metadata, workspaceId: start.workspaceId, budgetId: start.budgetId });
        }),
      );
      let failure: unknown = null;
      settled.forEach((s, i) => {
        const node = runnable[i];
        if (s.status === 'fulfilled') {
          state[node.id] = 'done';
          progress.nodes[node.id] = 'done';
          outputs[node.id] = s.value.output;
          if (node.type === 'condition') conditions[node.id] = s.value.output === true;
          else last = { id: node.id, output: s.value.output };
          if (s.value.model) model = s.value.model;
          records.push({
            id: node.id,
            type: node.type,
            status: 'completed',
            worker: s.value.worker,
            ...(s.value.credits_charged === undefined ? {} : { credits_charged: s.value.credits_charged, transaction_id: s.value.transaction_id }),
          });
        } else {
          progress.nodes[node.id] = 'failed';
          const f = isCancellation(s.reason) ? null : nodeFailure(s.reason, input.queues[node.type]);
          records.push({ id: node.id, type: node.type, status: f ? (f.setupRequired ? 'setup_required' : 'failed') : 'cancelled', ...(f ? { error_code: f.code } : {}) });
          failure ??= f ?? s.reason;
        }
      });
      if (failure) throw failure;
    }
    records.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    const final = last as { id: string; output: unknown } | null;
    outcome = { status: 'completed', response_text: final ? asText(final.output) : null, model, error_code: null, error_message: null, nodes: records };
  } catch (err) {
    if (isCancellation(err)) {
      cancelled = err;
      outcome = { status: 'cancelled', response_text: null, model: null, error_code: 'cancelled', error_message: 'the run was cancelled on request', nodes: records };
    } else if (err instanceof NodeFailed) {
      outcome = { status: err.setupRequired ? 'setup_required' : 'failed', response_text: null, model: null, error_code: err.code, error_message: err.message, nodes: records };
    } else {
      const f = nodeFailure(err);
      outcome = { status: 'failed', response_text: null, model: null, error_code: f.code, error_message: f.message, nodes: records };
    }
  }

  // Whatever happens now (even a cancel arriving this instant), the record and the callback follow.
  await CancellationScope.nonCancellable(async () => {
    await store.finishRun(input.runId, outcome);
    progress.status = outcome.status;
    upsertSearchAttributes([{ key: SA.flowStatus, value: outcome.status }]);
    if (!input.callback) return;
    const delivery = { runId: input.runId, groupId: input.groupId, schedule: input.callback.schedule, timeoutMs: input.callback.timeoutMs };
    if (atTheFloor) {
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

  if (cancelled) throw cancelled;
  if (outcome.status !== 'completed') throw ApplicationFailure.nonRetryable(outcome.error_message ?? outcome.status, outcome.error_code ?? outcome.status, outcome);
  return outcome;
}
