import { ApplicationFailure } from '@temporalio/activity';
import type { Models } from '../../../shared/platform/db/index';
import { RunRepository } from '../../../shared/webhook-runs/repository';
import { requestMetadataOf, type RunOutcome, type RunStatus, withWorker } from '../../../shared/webhook-runs/types';

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
        metadata: requestMetadataOf(run) ?? {},
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

    /**
     * The one write of a run that never dispatched a node: queued → terminal. Every node it
     * completed was evaluated in the workflow task this local activity belongs to, so on this
     * worker: they are recorded with its identity, which is returned for the workflow's result.
     * A record that was no longer queued is left as it is, and its status returned.
     */
    async finishQueuedRun(
      runId: string,
      outcome: RunOutcome,
    ): Promise<{ written: true; worker: string } | { written: false; status: RunStatus }> {
      const nodes = withWorker(outcome.nodes, deps.identity);
      const res = await runs.finishQueued(runId, { ...outcome, nodes }, new Date());
      if (res.written) return { written: true, worker: deps.identity };
      if (!res.status) throw ApplicationFailure.nonRetryable(`run ${runId} has no record`, 'run_not_found');
      return { written: false, status: res.status };
    },
  };
}

export type RunStoreActivities = ReturnType<typeof createRunStoreActivities>;
