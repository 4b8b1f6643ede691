import { logger } from '../../shared/platform/logger/index';
import type { RunRepository } from '../../shared/webhook-runs/repository';
import type { RunHeal, WebhookRunService } from '../../shared/webhook-runs/service';

export interface RunHealDeps {
  runs: Pick<RunRepository, 'staleQueued'>;
  service: Pick<WebhookRunService, 'healQueued'>;
}

/** A page cursor: the last run of the previous page (ISO time, so it crosses the activity boundary). */
export interface RunCursor {
  createdAt: string;
  id: string;
}

export function createRunHealActivities(deps: RunHealDeps) {
  return {
    /** Queued runs created before `beforeIso`, oldest first, after `after`. */
    async findStaleQueuedRuns(beforeIso: string, after: RunCursor | null, limit: number): Promise<RunCursor[]> {
      const rows = await deps.runs.staleQueued(
        new Date(beforeIso),
        after ? { created_at: new Date(after.createdAt), _id: after.id } : null,
        limit,
      );
      return rows.map((r) => ({ createdAt: new Date(r.created_at).toISOString(), id: r._id }));
    },
    /** Starts the run's workflow (idempotent: the run id is the workflow id), or fails a run that can no longer start. */
    async healQueuedRun(runId: string): Promise<RunHeal> {
      const outcome = await deps.service.healQueued(runId);
      if (outcome === 'started' || outcome === 'failed')
        logger.warn('healed a webhook run left queued without a workflow', { run_id: runId, outcome });
      return outcome;
    },
  };
}

export type RunHealActivities = ReturnType<typeof createRunHealActivities>;
