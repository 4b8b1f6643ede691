import type { WorkflowNode } from './index';

/** What every node activity gets: the node, and what its templates may read. */
export interface NodeCall<N extends WorkflowNode = WorkflowNode> {
  /** The run id, or in a wallet session the session id (then `workspaceId` and `budgetId` are empty). */
  runId: string;
  node: N;
  prompt: string;
  outputs: Record<string, unknown>;
  metadata: Record<string, unknown>;
  workspaceId: string;
  budgetId: string;
}

/** What every node activity answers; the run or session records it as the node's result. */
export interface NodeResult {
  output: unknown;
  worker: string;
  model?: string;
  credits_charged?: number;
  transaction_id?: string;
  /** A model node's usage above its hold, charged apart. */
  excess_transaction_id?: string;
}

/** What a kind's session activity (its registry entry's `session`) gets: the wallet pays, no workspace. */
export interface SessionNodeCall<N extends WorkflowNode = WorkflowNode> {
  sessionId: string;
  wallet: string;
  node: N;
  outputs: Record<string, unknown>;
  metadata: Record<string, unknown>;
}
