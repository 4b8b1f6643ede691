import type { CallbackConfig } from '../platform/config/index';
import type { WorkflowEdge, WorkflowNode } from '../workflows/index';
import type { RunWrites } from './run-writes';

/** What starting a run needs: the graph, where its callback goes, and whether its nodes are trusted. */
export interface RunStartRequest {
  runId: string;
  workflowId: string;
  groupId: string;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  /** The callback schedule from config, when the run has a callback_url. */
  callback: CallbackConfig | null;
  nodeStartTimeoutMs: number;
  /** A wallet-authored graph (no workspace owns it): its nodes run on the untrusted queues. */
  untrusted: boolean;
  /** The prompt and request_metadata the run was triggered with. */
  prompt: string;
  metadata: Record<string, unknown>;
}

/** A replay of a run's callback the group asked for (already recorded under `replayId`). */
export interface CallbackReplayStart {
  replayId: string;
  runId: string;
  groupId: string;
  requestedBy: string;
  timeoutMs: number;
}

/**
 * Where runs execute, as the run service sees it. A port, so the service needs no workflow
 * engine to be built or tested; temporal/webhook-runs/client.ts implements it.
 */
export interface RunEngine {
  /** Starts the run's execution once (true); a second start of the same run finds the first (false). */
  start(run: RunStartRequest): Promise<boolean>;
  /** Whether the run has an execution, open or closed. */
  hasExecution(runId: string): Promise<boolean>;
  /** Requests cancellation; false when there is no open execution. */
  cancel(runId: string): Promise<boolean>;
  /** Starts the replay once; a second start of the same replay finds the first. */
  replayCallback(replay: CallbackReplayStart): Promise<void>;
  /**
   * Resolves when the engine knows the stored run is terminal ('ended'), or that it has no
   * execution to watch ('unknown'). `written`: the outcome and the times of the workflow's own
   * writes it closed with, when it carries them and no cancel request reached it (a cancel
   * record may have been written elsewhere); null: the caller reads the store. Rejects when aborted.
   * `watching` is called once the history so far is known to hold no end.
   */
  awaitEnd(runId: string, signal: AbortSignal, watching?: () => void): Promise<RunEnd>;
}

export type RunEnd = { end: 'ended'; written: RunWrites | null } | { end: 'unknown' };
