import { ActivityCancellationType, type ActivityOptions } from '@temporalio/common';
import type { NodeType } from '../../shared/workflows/types';

/**
 * Every task queue of webhook runs, in one place. The run workflow and its store activities
 * live on RUN_QUEUE; each node kind has its own queue, so a deployment can scale (or isolate)
 * model calls and paid tool calls apart from cheap template/condition nodes.
 */
export const RUN_QUEUE = 'webhook-runs-v1';

export const NODE_QUEUES = {
  template: 'node-template-v1',
  condition: 'node-condition-v1',
  model: 'node-model-v1',
  tool: 'node-tool-v1',
} as const satisfies Record<NodeType, string>;

/**
 * The same node kinds for untrusted graphs (wallet-authored: a run of a workflow no workspace
 * owns, and every wallet session), served by a worker process of their own, so a poisoned node
 * holding its slots or its event loop never delays settlements, holds, leases, payouts,
 * callbacks or a workspace's own runs (docs/decisions.md, "Untrusted graphs on queues of their own").
 */
export const UNTRUSTED_NODE_QUEUES = {
  template: 'untrusted-node-template-v1',
  condition: 'untrusted-node-condition-v1',
  model: 'untrusted-node-model-v1',
  tool: 'untrusted-node-tool-v1',
} as const satisfies Record<NodeType, string>;

/**
 * A cancelled run waits for its running node to acknowledge the cancel (abort its HTTP call,
 * release held credits) before it records `cancelled`. Set explicitly: an unset
 * cancellationType is sent as TRY_CANCEL, whatever the SDK's doc comment says.
 */
const WAIT = ActivityCancellationType.WAIT_CANCELLATION_COMPLETED;

/** The run record must end up agreeing with the execution: store writes retry until they land. */
export const STORE_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/** Template and condition nodes are pure and fast: a short timeout, a couple of retries (a lost worker). */
export const TEMPLATE_NODE_OPTIONS: ActivityOptions = { cancellationType: WAIT, startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 3, nonRetryableErrorTypes: ['node_output_too_large'] } };
export const CONDITION_NODE_OPTIONS: ActivityOptions = { cancellationType: WAIT, startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 3, nonRetryableErrorTypes: ['invalid_node'] } };

/**
 * Model calls are slow: they heartbeat while waiting, so a dead worker is noticed in 10 s and
 * a cancel reaches the HTTP call; retried with backoff on 429/5xx/timeouts only.
 */
export const MODEL_NODE_OPTIONS: ActivityOptions = {
  cancellationType: WAIT,
  startToCloseTimeout: '11 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 4, nonRetryableErrorTypes: ['setup_required', 'model_error'] },
};

/**
 * Paid tool calls: charged at most once per (account, `<run>:<node>`) by the invoker, so a
 * retry after a lost worker never pays twice; refusals (budget, credits, parameters) are final.
 */
export const TOOL_NODE_OPTIONS: ActivityOptions = {
  cancellationType: WAIT,
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: ['budget_exceeded', 'insufficient_credits', 'invalid_parameters', 'product_not_found', 'action_not_found', 'action_ambiguous', 'missing_credentials', 'node_output_too_large'],
  },
};

/**
 * Schedule-to-start bound of every node activity when the run's input carries none (runs started
 * before RUN_NODE_START_TIMEOUT_MS existed): a node kind whose queue no worker serves fails the
 * run with `node_queue_unserved` instead of leaving it running forever.
 */
export const DEFAULT_NODE_START_TIMEOUT_MS = 300_000;
