import type { NodeType, WorkflowEdge, WorkflowNode } from '../workflows/index';

/** Session states (docs/decisions.md): the session is `active` until `end` or the idle timeout, then `ended` for good. */
export type SessionStatus = 'active' | 'ended';
export type SessionEndReason = 'ended_by_wallet' | 'idle_timeout';
/** The run inside a session: pending → running → completed | failed | setup_required | cancelled (ended during a tool call). */
export type SessionRunStatus = 'pending' | 'running' | 'completed' | 'failed' | 'setup_required' | 'cancelled';
export type SessionNodeStatus = 'pending' | 'completed' | 'skipped' | 'failed' | 'setup_required' | 'cancelled';

export interface SessionNodeResult {
  node_id: string;
  type: string;
  status: SessionNodeStatus;
  /** Template text, condition result (true/false) or tool response. */
  output: unknown;
  error: string | null;
  /** The failure's code (`insufficient_credits`, `budget_exceeded`, `setup_required`, ...); null when it did not fail. */
  error_code?: string | null;
  credits_charged: number;
  /** The `purchase` transaction a paid tool node was charged by. */
  transaction_id?: string | null;
  finished_at: string | null;
}

export interface SessionState {
  workflow_session_id: string;
  workflow_id: string;
  version: string;
  wallet: string;
  instance_id: string;
  status: SessionStatus;
  end_reason: SessionEndReason | null;
  run: {
    status: SessionRunStatus;
    nodes: SessionNodeResult[];
    /** The output of the last node that ran, as text. */
    response_text: string | null;
    error: string | null;
    /** The code of the node failure that stopped the run, or null. */
    error_code?: string | null;
    credits_charged: number;
  };
  started_at: string;
  last_activity_at: string;
  ended_at: string | null;
  idle_timeout_seconds: number;
}

/** What the session workflow starts with: the published version's graph is frozen into the input. */
export interface SessionInput {
  sessionId: string;
  workflowId: string;
  version: string;
  wallet: string;
  instanceId: string;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  idleTimeoutMs: number;
  startedAt: string;
  /**
   * Task queues as the client resolved them (tests prefix them): the session's own, and each node
   * kind's (untrusted) queue. A session started before a kind existed has none for it (`tool`:
   * sessions from before paid tool nodes).
   */
  queues: { sessions: string } & Partial<Record<NodeType, string>>;
  /** Present after a continue-as-new: the state so far (the graph already ran; only the wait goes on). */
  carried?: SessionState;
  /** Continue-as-new once the history has this many events (tests); otherwise when Temporal suggests it. */
  continueAsNewAfterEvents?: number;
}
