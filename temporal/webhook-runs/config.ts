import type { ActivityOptions } from '@temporalio/common';
import { NODE_KINDS, NODE_TYPES, type NodeType } from '../../shared/workflows/nodes/index';

/**
 * Every task queue of webhook runs, in one place. The run workflow and its store activities
 * live on RUN_QUEUE; each node kind has its own queue (its registry entry, shared/workflows/nodes/<kind>/kind.ts,
 * holds its name, activity and options), so a deployment can scale (or isolate) model calls and
 * paid tool calls apart from cheap template/condition nodes.
 */
export const RUN_QUEUE = 'webhook-runs-v1';

export const NODE_QUEUES = nodeQueues('queue');

/**
 * The same node kinds for untrusted graphs (wallet-authored: a run of a workflow no workspace
 * owns, and every wallet session), served by a worker process of their own, so a poisoned node
 * holding its slots or its event loop never delays settlements, holds, leases, payouts,
 * callbacks or a workspace's own runs (docs/decisions.md, "Untrusted graphs on queues of their own").
 */
export const UNTRUSTED_NODE_QUEUES = nodeQueues('untrustedQueue');

/** Node kind → its task queue, from the kinds' registry (shared/workflows/nodes/index.ts). */
function nodeQueues(which: 'queue' | 'untrustedQueue'): Readonly<Record<NodeType, string>> {
  return Object.freeze(
    Object.fromEntries(NODE_TYPES.map((type) => [type, NODE_KINDS[type][which]])) as Record<NodeType, string>,
  );
}

/** The run record must end up agreeing with the execution: store writes retry until they land. */
export const STORE_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/**
 * Schedule-to-start bound of every node activity when the run's input carries none (runs started
 * before RUN_NODE_START_TIMEOUT_MS existed): a node kind whose queue no worker serves fails the
 * run with `node_queue_unserved` instead of leaving it running forever.
 */
export const DEFAULT_NODE_START_TIMEOUT_MS = 300_000;
