import { ApplicationFailure } from '@temporalio/activity';
import type { Models } from '../../../shared/platform/db/index';
import { RunRepository } from '../../../shared/webhook-runs/repository';
import type { RunOutcome, RunStatus } from '../../../shared/webhook-runs/types';

export interface RunStart {
  status: RunStatus;
  prompt: string;
  metadata: Record<string, unknown>;
  workspaceId: string;
  budgetId: string;
  /** This worker: the run workflow records it on the nodes it evaluates in its own task (V3). */
  worker: string;
}

/**
 * The run workflow's writes to its record: queued → running, then the terminal state. Run as
 * local activities of the run workflow (one point write each, no task dispatch of their own).
 */
export function createRunStoreActivities(deps: { models: Models; identity: string; runs?: RunRepository }) {
  const runs = deps.runs ?? new RunRepository(deps.models);
  return {
    async startRun(runId: string): Promise<RunStart> {
      const run = await runs.markRunning(runId, new Date());
      if (!run) throw ApplicationFailure.nonRetryable(`run ${runId} has no record`, 'run_not_found');
      return {
        status: run.status,
        prompt: run.prompt,
        metadata: run.request_metadata_json ? (JSON.parse(run.request_metadata_json) as Record<string, unknown>) : {},
        workspaceId: run.workspace_id,
        budgetId: run.budget_id,
        worker: deps.identity,
      };
    },

    async finishRun(runId: string, outcome: RunOutcome): Promise<RunStatus> {
      const status = await runs.finish(runId, outcome, new Date());
      if (!status) throw ApplicationFailure.nonRetryable(`run ${runId} has no record`, 'run_not_found');
      return status;
    },
  };
}

export type RunStoreActivities = ReturnType<typeof createRunStoreActivities>;
