import {
  allHandlersFinished,
  CancellationScope,
  condition,
  makeContinueAsNewFunc,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  SessionEndReason,
  SessionInput,
  SessionNodeResult,
  SessionState,
} from '../../shared/workflow-sessions/types';
import type { NodeResult, SessionNodeCall } from '../../shared/workflows/nodes/call';
import { kindOf, NODE_TYPES, type NodeType, type WorkflowNode } from '../../shared/workflows/nodes/index';
import { asText, nodeActivities, runGraph } from '../graph-engine/engine';
import { SA } from '../search-attributes';
import { workflowNow } from '../workflow-clock';
import type { WorkflowSessionActivities } from './activities';
import { SESSION_STORE_ACTIVITY_OPTIONS } from './config';
import { endSessionUpdate, sessionStateQuery, sessionTouchSignal } from './definitions';

const iso = (ms: number) => new Date(ms).toISOString();

/** Sessions recorded before continue-as-new waited in one run whatever their history's length. */
export const CONTINUE_AS_NEW_PATCH = 'session-continue-as-new';

/** A node the session cannot run at all (nothing was scheduled for it). */
class NotRunnable extends Error {}

/**
 * A wallet's session of a published workflow (workflow id = session id). It runs the frozen
 * version once, node by node through the runs engine's node activities (template, condition,
 * model on their queues) and the session's paid tool activity (the wallet's credits, on the
 * node-tool queue; `end` during that call cancels it), answers fetch from a query, and stays
 * active until the wallet ends it (an update that answers with the final state) or no one
 * touched it for the idle timeout.
 * Then it writes its final state to the store, frees the (wallet, workflow, instance) key, and
 * completes with that state. A long wait (many fetches, each a signal) continues as new when the
 * history grows, carrying the state and the idle deadline; the workflow id stays the session id.
 */
export async function workflowSessionWorkflow(input: SessionInput): Promise<SessionState> {
  const store = proxyActivities<WorkflowSessionActivities>({
    taskQueue: input.queues.sessions,
    ...SESSION_STORE_ACTIVITY_OPTIONS,
  });
  // The runs' node activities on the session's (untrusted) queues; a kind with a session activity
  // of its own (the wallet pays: tool) takes that one, on the same queue.
  const runners = nodeActivities((type) => input.queues[type] ?? '');
  const ownRunners = sessionNodeActivities(input.queues);
  let paidScope: CancellationScope | null = null;

  const state: SessionState = input.carried ?? {
    workflow_session_id: input.sessionId,
    workflow_id: input.workflowId,
    version: input.version,
    wallet: input.wallet,
    instance_id: input.instanceId,
    status: 'active',
    end_reason: null,
    run: { status: 'pending', nodes: [], response_text: null, error: null, credits_charged: 0 },
    started_at: input.startedAt,
    last_activity_at: input.startedAt,
    ended_at: null,
    idle_timeout_seconds: Math.round(input.idleTimeoutMs / 1000),
  };
  let endReason: SessionEndReason | null = null;
  let touches = 0;
  let finished = false;
  setHandler(sessionStateQuery, () => state);
  setHandler(sessionTouchSignal, () => {
    touches += 1;
    state.last_activity_at = iso(workflowNow());
  });
  setHandler(endSessionUpdate, async ({ reason }) => {
    endReason ??= reason;
    paidScope?.cancel();
    await condition(() => finished);
    return state;
  });

  if (!input.carried) {
    await runSessionGraph();
    await store.recordSessionProgress(state);
  }

  // After a continue-as-new the idle timer goes on from the last touch, not from the new run's start.
  let wait = input.carried
    ? Math.max(1, Date.parse(state.last_activity_at) + input.idleTimeoutMs - workflowNow())
    : input.idleTimeoutMs;
  while (endReason === null) {
    if (historyFull() && allHandlersFinished() && patched(CONTINUE_AS_NEW_PATCH)) {
      await makeContinueAsNewFunc<typeof workflowSessionWorkflow>({
        typedSearchAttributes: workflowInfo().typedSearchAttributes,
      })({ ...input, carried: state });
    }
    const seen = touches;
    if (!(await condition(() => endReason !== null || touches !== seen, wait))) endReason = 'idle_timeout';
    wait = input.idleTimeoutMs;
  }
  state.status = 'ended';
  state.end_reason = endReason;
  state.ended_at = iso(workflowNow());
  await store.finishSession(state);
  upsertSearchAttributes([{ key: SA.flowStatus, value: 'ended' }]);
  finished = true;
  await condition(allHandlersFinished);
  return state;

  function historyFull(): boolean {
    const info = workflowInfo();
    return (
      info.continueAsNewSuggested ||
      (input.continueAsNewAfterEvents !== undefined && info.historyLength >= input.continueAsNewAfterEvents)
    );
  }

  async function runSessionGraph(): Promise<void> {
    state.run.status = 'running';
    const metadata = { instance_id: input.instanceId, workflow_session_id: input.sessionId };
    const record = (r: Omit<SessionNodeResult, 'finished_at'>) =>
      state.run.nodes.push({ ...r, finished_at: iso(workflowNow()) });
    const stopWith = (status: SessionState['run']['status'], error: string, code: string) => {
      state.run.status = status;
      state.run.error = error;
      state.run.error_code = code;
    };
    const end = await runGraph({
      nodes: input.nodes,
      edges: input.edges,
      mode: 'one_by_one',
      stop: () => endReason !== null, // ended while running: the rest stays pending
      execute(node, outputs) {
        const own = kindOf(node.type).session;
        if (own) {
          const run = ownRunners[node.type];
          if (!run || !patched(own.patch)) throw new NotRunnable(own.unavailable);
          return paid(run, node, outputs, metadata);
        }
        return runners[node.type]({
          runId: `${input.sessionId}`,
          node,
          prompt: '',
          outputs,
          metadata,
          workspaceId: '',
          budgetId: '',
        });
      },
      hooks: {
        skipped(node) {
          record({
            node_id: node.id,
            type: node.type,
            status: 'skipped',
            output: null,
            error: null,
            credits_charged: 0,
          });
        },
        completed(node, result) {
          if (!kindOf(node.type).branches) state.run.response_text = asText(result.output);
          const charged = result.credits_charged ?? 0;
          state.run.credits_charged += charged;
          record({
            node_id: node.id,
            type: node.type,
            status: 'completed',
            output: result.output,
            error: null,
            credits_charged: charged,
            ...(result.transaction_id !== undefined ? { transaction_id: result.transaction_id } : {}),
          });
        },
        failed(node, failure, err) {
          if (err instanceof NotRunnable) {
            record({
              node_id: node.id,
              type: node.type,
              status: 'setup_required',
              output: null,
              error: err.message,
              error_code: 'setup_required',
              credits_charged: 0,
            });
            return stopWith('setup_required', err.message, 'setup_required');
          }
          const f = failure ?? {
            code: 'session_ended',
            message: 'the session ended while the node ran; its call was cancelled and nothing was charged',
          };
          const status =
            f.code === 'setup_required' ? 'setup_required' : f.code === 'session_ended' ? 'cancelled' : 'failed';
          record({
            node_id: node.id,
            type: node.type,
            status,
            output: null,
            error: `${f.code}: ${f.message}`,
            error_code: f.code,
            credits_charged: 0,
          });
          stopWith(status, `${f.code}: ${f.message}`, f.code);
        },
      },
    });
    if (end.ended === 'completed') state.run.status = 'completed';
  }

  /** A paid node in its own scope, so `end` can cancel the call (and wait for the hold's release). */
  async function paid(
    run: SessionNodeRunner,
    node: WorkflowNode,
    outputs: Record<string, unknown>,
    metadata: Record<string, unknown>,
  ): Promise<NodeResult> {
    const scope = new CancellationScope();
    paidScope = scope;
    try {
      return await scope.run(() => run({ sessionId: input.sessionId, wallet: input.wallet, node, outputs, metadata }));
    } finally {
      paidScope = null;
    }
  }
}

type SessionNodeRunner = (call: SessionNodeCall) => Promise<NodeResult>;

/** The session activity of each kind that has one (its registry entry's `session`), where its queue is given. */
function sessionNodeActivities(queues: SessionInput['queues']): Partial<Record<NodeType, SessionNodeRunner>> {
  return Object.fromEntries(
    NODE_TYPES.flatMap((type) => {
      const own = kindOf(type).session;
      const queue = queues[type];
      if (!own || !queue) return [];
      return [
        [type, proxyActivities<Record<string, SessionNodeRunner>>({ taskQueue: queue, ...own.options })[own.name]],
      ];
    }),
  );
}
