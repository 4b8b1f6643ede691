import type { workflowSessionActiveModel, workflowSessionModel } from './model';

/** The models this capability owns, under the names the composition root registers them by. */
export interface WorkflowSessionsModels {
  workflowSessions: ReturnType<typeof workflowSessionModel>;
  workflowSessionActive: ReturnType<typeof workflowSessionActiveModel>;
}
