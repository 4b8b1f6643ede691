import { defineQuery } from '@temporalio/workflow';
import type { RunStatus } from '../../shared/webhook-runs/types';

export interface RunProgress {
  status: RunStatus;
  /** Node id → pending | running | done | skipped | failed. */
  nodes: Record<string, 'pending' | 'running' | 'done' | 'skipped' | 'failed'>;
}

/** Where a run is, straight from its workflow (the Temporal UI's "Queries" tab, or the client). */
export const runProgressQuery = defineQuery<RunProgress>('runProgress');
