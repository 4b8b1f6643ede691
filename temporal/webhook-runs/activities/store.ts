import { ApplicationFailure } from '@temporalio/activity';
import type { Models } from '../../../shared/composition/models';
import { RunRepository } from '../../../shared/webhook-runs/repository';
import { requestMetadataOf, type RunOutcome, type RunStatus, withWorker } from '../../../shared/webhook-runs/types';

export interface StartedRun {
  status: RunStatus;
  prompt: string;
  metadata: Record<string, unknown>;
  workspaceId: string;
  budgetId: string;
  /** This worker: the run workflow records it on the nodes it evaluates in its own task (V3). */
  worker: string;
  /** The record's started_at (ISO) once running; absent from results recorded before it was returned. */
  started_at?: string | null;
}

/**
 * What finishRun did: the record's status now, and the time it wrote (ISO) when its own write is
 * the terminal state the record holds (null when the record had ended already, e.g. healed as
 * failed, or an earlier attempt of this call wrote it). Results recorded before this shape are
 * the status alone.
 */
export interface RunFinish {
  status: RunStatus;
  finished_at: string | null;
}

/** What a terminal write did, as the workflow is told: the time only when this write is the one the record holds. */
function finished(runId: string, done: { status: RunStatus; wrote: boolean } | null, now: Date): RunFinish {
  if (!done) throw ApplicationFailure.nonRetryable(`run ${runId} has no record`, 'run_not_found');
  return { status: done.status, finished_at: done.wrote ? now.toISOString() : null };
}

/**
 * The run workflow's writes to its record: queued → running, then the terminal state. Run as
 * local activities of the run workflow (one point write each, no task dispatch of their own).
 */
export function createRunStoreActivities(deps: { models: Models; identity: string; runs?: RunRepository }) {
  const runs = deps.runs ?? new RunRepository(deps.models);
  return {
    async startRun(runId: string): Promise<StartedRun> {
      const run = await runs.markRunning(runId, new Date());
      if (!run) throw ApplicationFailure.nonRetryable(`run ${runId} has no record`, 'run_not_found');
      return {
        status: run.status,
        prompt: run.prompt,
        metadata: requestMetadataOf(run) ?? {},
        workspaceId: run.workspace_id,
        budgetId: run.budget_id,
        worker: deps.identity,
        started_at: run.started_at ? new Date(run.started_at).toISOString() : null,
      };
    },

    async finishRun(runId: string, outcome: RunOutcome): Promise<RunFinish> {
      const now = new Date();
      return finished(runId, await runs.finish(runId, outcome, now), now);
    },

    /**
     * The one write of a run that never dispatched a node: queued → terminal, started at that
     * write (`finished_at` is both). Every node it completed was evaluated in the workflow task
     * this local activity belongs to, so on this worker: they are recorded with its identity,
     * which is returned for the workflow's result. A record no longer queued is left as it is
     * (`finished_at` null, its status returned).
     */
    async finishQueuedRun(runId: string, outcome: RunOutcome): Promise<RunFinish & { worker: string }> {
      const now = new Date();
      const done = await runs.finishQueued(runId, { ...outcome, nodes: withWorker(outcome.nodes, deps.identity) }, now);
      return { ...finished(runId, done, now), worker: deps.identity };
    },
  };
}

export type RunStoreActivities = ReturnType<typeof createRunStoreActivities>;
