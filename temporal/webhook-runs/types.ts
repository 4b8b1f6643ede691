import type { RetrySchedule } from '../../shared/webhook-runs/callback-schedule';
import type { WorkflowEdge, WorkflowNode } from '../../shared/workflows/types';
import type { NODE_QUEUES } from './config';

/** Task queues as the client resolved them (tests prefix them; workflow code cannot read config). */
export type RunQueues = { runs: string } & { [K in keyof typeof NODE_QUEUES]: string };

export interface CallbackPlan {
  queue: string;
  schedule: RetrySchedule;
  timeoutMs: number;
}

/** What a run workflow starts with: the graph as it was when triggered, and where to run each part. */
export interface WebhookRunInput {
  runId: string;
  workflowId: string;
  groupId: string;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  queues: RunQueues;
  /** Present when the run has a callback_url. */
  callback: CallbackPlan | null;
  /** Schedule-to-start bound of each node activity (RUN_NODE_START_TIMEOUT_MS); absent in runs started before it. */
  nodeStartTimeoutMs?: number;
  /** The trigger's request, so nodes evaluated in the workflow task need no read of the record; absent in runs started before it. */
  request?: RunRequest;
}

export interface RunRequest {
  prompt: string;
  metadata: Record<string, unknown>;
}
