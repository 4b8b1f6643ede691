import type { ActivityOptions } from '@temporalio/common';
import { stringsIn } from '../../template';
import { type BaseNode, defineKind, WAIT_CANCELLATION } from '../kind';

export interface ToolNode extends BaseNode {
  type: 'tool';
  /** Catalog product id or slug. */
  product: string;
  /** Action slug; absent: the product's only action. */
  action?: string;
  /** Action parameters; every string inside is templated (also {{credentials.<name>}}). */
  parameters: Record<string, unknown>;
}

/** A session tool node's refusals that no retry changes (recorded as the node's error_code). */
export const SESSION_TOOL_FINAL_CODES = [
  'product_not_found',
  'action_not_found',
  'action_ambiguous',
  'invalid_parameters',
  'insufficient_credits',
  'budget_exceeded',
  'setup_required',
  'node_output_too_large',
];

/** The invoker's request id of a session's tool node: charged at most once per (wallet, session, node). */
export function sessionToolRequestId(sessionId: string, nodeId: string): string {
  return `session:${sessionId}:${nodeId}`;
}

/**
 * A session's paid tool call (its session activity, on the tool kind's queue): charged at most
 * once per session and node by the invoker, so a retry after a lost worker never pays twice. It
 * heartbeats, so `end` during the call cancels it (the vendor call is aborted, the hold released)
 * and the session waits for that before it records its final state; the session's refusals are final.
 */
const SESSION_TOOL_NODE_OPTIONS: ActivityOptions = {
  cancellationType: WAIT_CANCELLATION,
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

const TOOL_FINAL_ERRORS = [
  'budget_exceeded',
  'insufficient_credits',
  'invalid_parameters',
  'product_not_found',
  'action_not_found',
  'action_ambiguous',
  'missing_credentials',
  'node_output_too_large',
];

/**
 * `tool`: one catalog action through the tool invoker (shared/tools/invoke.ts), paid from the
 * run's workspace account (./activity.ts) or, in a wallet session, from the wallet
 * (./session-activity.ts, its own activity on the same queue).
 */
export const toolKind = defineKind<ToolNode>()({
  type: 'tool',
  fields: [
    { name: 'product', type: 'string', required: true },
    { name: 'action', type: 'string', required: false },
    { name: 'parameters', type: 'object', required: true },
  ],
  templates: (node) => stringsIn(node.parameters, '.parameters').map((s) => ({ ...s, credentialsAllowed: true })),
  finalErrors: TOOL_FINAL_ERRORS,
  retriedErrors: ['vendor_error', 'vendor_timeout'],
  queue: 'node-tool-v1',
  untrustedQueue: 'untrusted-node-tool-v1',
  activity: 'runToolNode',
  /**
   * Paid tool calls: charged at most once per (account, `<run>:<node>`) by the invoker, so a
   * retry after a lost worker never pays twice; refusals (budget, credits, parameters) are final.
   */
  options: {
    cancellationType: WAIT_CANCELLATION,
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '10 seconds',
    retry: {
      initialInterval: '2 seconds',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: 3,
      nonRetryableErrorTypes: TOOL_FINAL_ERRORS,
    },
  },
  cost: {
    rule: "holds its catalog action's price before the vendor call and captures it after (released when the call fails), once per (account, node)",
    catalogAction: (node) => ({ product: node.product, action: node.action ?? null }),
  },
  session: {
    name: 'runSessionToolNode',
    options: SESSION_TOOL_NODE_OPTIONS,
    patch: 'session-paid-tool-nodes',
    unavailable:
      'tool nodes cannot run in wallet sessions in this build: the paid tool node activity (wallet credits through hold/capture) is not available',
  },
  summary: { outline: (node) => ({ product: node.product, ...(node.action ? { action: node.action } : {}) }) },
  output: 'tool response',
});
