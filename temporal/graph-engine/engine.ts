import {
  ActivityFailure,
  type ActivityOptions,
  ApplicationFailure,
  isCancellation,
  patched,
  proxyActivities,
  TimeoutFailure,
} from '@temporalio/workflow';
import { nextDecisions, type NodeState, topoOrder } from '../../shared/workflows/graph';
import { NodeError, RunOutputsMeter } from '../../shared/workflows/node-output';
import type { NodeResult } from '../../shared/workflows/nodes/call';
import { kindOf, NODE_TYPES, type NodeType } from '../../shared/workflows/nodes/index';
import { RenderTooLarge } from '../../shared/workflows/template';
import type { WorkflowEdge, WorkflowNode } from '../../shared/workflows/types';

/**
 * The one interpreter of a workflow graph, used by the webhook run workflows and the wallet
 * session workflow (workflow code: it runs inside their workflow tasks). It decides the graph
 * wave by wave (shared/workflows/graph.ts), keeps each node's state, lets branching kinds
 * (conditions) pick the edges taken, and turns a node's failure into an error code. What differs
 * between its callers is passed in: how a node is executed (a run's node activities, inline pure
 * nodes, a session's paid tool activity), what is recorded (hooks), and how a wave is executed.
 */

/** A node's failure as the run or session records it: its error code, message, and whether it asks for setup. */
export class NodeFailed extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly setupRequired: boolean,
  ) {
    super(message);
  }
}

/**
 * Marks executions that bound their node outputs run-wide. Asked only when a bound is passed, so a
 * run within the bounds records no marker, and a history recorded before (no marker) replays as it ran.
 */
export const RUN_OUTPUTS_CAP_PATCH = 'run-outputs-cap';

/** The error code and message of a failed node (an activity's ApplicationFailure type is the code). */
export function nodeFailure(err: unknown, queue?: string): NodeFailed {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof NodeFailed) return cause;
  if (cause instanceof NodeError) return new NodeFailed(cause.code, cause.message, false);
  if (cause instanceof RenderTooLarge) return new NodeFailed(cause.name, cause.message, false);
  if (cause instanceof ApplicationFailure)
    return new NodeFailed(cause.type ?? 'node_failed', cause.message, cause.type === 'setup_required');
  if (cause instanceof TimeoutFailure && cause.timeoutType === 'SCHEDULE_TO_START') {
    return new NodeFailed(
      'node_queue_unserved',
      `no worker took the node from task queue ${queue ?? '(unknown)'} in time: is a worker serving it?`,
      false,
    );
  }
  if (cause instanceof TimeoutFailure)
    return new NodeFailed('node_timeout', `the node timed out (${cause.timeoutType})`, false);
  return new NodeFailed('node_failed', (cause as Error)?.message ?? 'node failed', false);
}

export type NodeRunner = (call: any) => Promise<NodeResult>;

/** Each kind's activity (the registry's name and options) on the queue `queueOf` gives it. */
export function nodeActivities(
  queueOf: (type: NodeType) => string,
  extra: Omit<ActivityOptions, 'taskQueue'> = {},
): Record<NodeType, NodeRunner> {
  return Object.fromEntries(
    NODE_TYPES.map((type) => {
      const kind = kindOf(type);
      return [
        type,
        proxyActivities<Record<string, NodeRunner>>({ taskQueue: queueOf(type), ...extra, ...kind.options })[
          kind.activity
        ],
      ];
    }),
  ) as unknown as Record<NodeType, NodeRunner>;
}

export interface GraphHooks {
  /** The node was decided against (no incoming edge taken). */
  skipped(node: WorkflowNode): void;
  /** The node starts (waves only: sequential callers record when it ends). */
  running?(node: WorkflowNode): void;
  completed(node: WorkflowNode, result: NodeResult): void;
  /** The node failed (`failure`), or was cancelled (`failure` null; `err` is the cancellation). */
  failed(node: WorkflowNode, failure: NodeFailed | null, err: unknown): void;
}

export interface GraphRun {
  nodes: readonly WorkflowNode[];
  edges: readonly WorkflowEdge[];
  /**
   * `waves`: the nodes a wave runs start together; a failure ends the graph once the whole wave
   * settled (webhook runs). `one_by_one`: each decision in order, the graph ends at the first
   * failure, or before the next node when `stop()` says so (sessions).
   */
  mode: 'waves' | 'one_by_one';
  /** Executes one node; `outputs` holds every earlier node's output by id (the same object throughout). */
  execute(node: WorkflowNode, outputs: Record<string, unknown>): Promise<NodeResult>;
  hooks: GraphHooks;
  stop?(): boolean;
  /** The queue a node's activity went to, for `node_queue_unserved`'s message. */
  queueOf?(node: WorkflowNode): string | undefined;
}

export type GraphEnd =
  | { ended: 'completed'; last: { id: string; output: unknown } | null; model: string | null; order: string[] }
  /** `failure` null: cancelled (`error` is the cancellation). */
  | { ended: 'failed'; failure: NodeFailed | null; error: unknown; order: string[] }
  | { ended: 'stopped'; order: string[] };

/** Runs the graph to its end (throws only what its hooks or the workflow's own cancellation throw outside a node). */
export async function runGraph(g: GraphRun): Promise<GraphEnd> {
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const order =
    topoOrder(
      g.nodes.map((n) => n.id),
      g.edges,
    ) ?? [];
  const state: Record<string, NodeState> = Object.fromEntries(order.map((id) => [id, 'pending']));
  const outputs: Record<string, unknown> = {};
  const conditions: Record<string, boolean> = {};
  let last: { id: string; output: unknown } | null = null;
  let model: string | null = null;
  const meter = new RunOutputsMeter();
  /** Executes a node unless the outputs it would be handed are past the run's bounds. */
  const execute = (node: WorkflowNode): Promise<NodeResult> => {
    const over = meter.nextNode();
    if (over !== null && patched(RUN_OUTPUTS_CAP_PATCH)) throw new NodeError('run_outputs_too_large', over);
    return g.execute(node, outputs);
  };

  const done = (node: WorkflowNode, result: NodeResult) => {
    state[node.id] = 'done';
    outputs[node.id] = result.output;
    meter.added(result.output);
    if (kindOf(node.type).branches) conditions[node.id] = result.output === true;
    else last = { id: node.id, output: result.output };
    if (result.model) model = result.model;
    g.hooks.completed(node, result);
  };
  const failureOf = (node: WorkflowNode, err: unknown) =>
    isCancellation(err) ? null : nodeFailure(err, g.queueOf?.(node));

  for (
    let wave = nextDecisions(order, g.edges, state, conditions);
    wave.length;
    wave = nextDecisions(order, g.edges, state, conditions)
  ) {
    if (g.mode === 'one_by_one') {
      for (const d of wave) {
        const node = byId.get(d.id)!;
        if (g.stop?.()) return { ended: 'stopped', order };
        if (!d.run) {
          state[d.id] = 'skipped';
          g.hooks.skipped(node);
          continue;
        }
        try {
          done(node, await execute(node));
        } catch (err) {
          const failure = failureOf(node, err);
          g.hooks.failed(node, failure, err);
          return { ended: 'failed', failure, error: err, order };
        }
      }
      continue;
    }

    for (const d of wave.filter((w) => !w.run)) {
      state[d.id] = 'skipped';
      g.hooks.skipped(byId.get(d.id)!);
    }
    const runnable = wave.filter((w) => w.run).map((w) => byId.get(w.id)!);
    const settled = await Promise.allSettled(
      runnable.map(async (node): Promise<NodeResult> => {
        g.hooks.running?.(node);
        return execute(node);
      }),
    );
    let first: { failure: NodeFailed | null; error: unknown } | null = null;
    settled.forEach((s, i) => {
      const node = runnable[i];
      if (s.status === 'fulfilled') return done(node, s.value);
      const failure = failureOf(node, s.reason);
      g.hooks.failed(node, failure, s.reason);
      first ??= { failure, error: s.reason };
    });
    if (first) return { ended: 'failed', ...(first as { failure: NodeFailed | null; error: unknown }), order };
  }
  return { ended: 'completed', last, model, order };
}

export function asText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}
