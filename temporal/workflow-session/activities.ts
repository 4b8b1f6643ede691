import type { Models } from '../../shared/composition/models';
import { WorkflowSessionRepository } from '../../shared/workflow-sessions/repository';
import type { SessionState } from '../../shared/workflow-sessions/types';

export interface WorkflowSessionDeps {
  models: Models;
  /** The process's one instance (the composition root's); built here when absent (tests). */
  sessions?: WorkflowSessionRepository;
}

/** The session's store work; each write is idempotent (same state, same result), so retries are safe. */
export function createWorkflowSessionActivities(deps: WorkflowSessionDeps) {
  const repo = deps.sessions ?? new WorkflowSessionRepository(deps.models);
  return {
    /** Results so far, so fetch can read them even when Temporal cannot be asked. */
    async recordSessionProgress(state: SessionState): Promise<void> {
      await repo.saveState(state);
    },
    /** The final state; frees the (wallet, workflow, instance) key so the next start begins a new session. */
    async finishSession(state: SessionState): Promise<void> {
      await repo.finish(state);
    },
  };
}

export type WorkflowSessionActivities = ReturnType<typeof createWorkflowSessionActivities>;
