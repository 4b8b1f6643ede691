import type { workflowDefinitionModel } from './workflow-definition';
import type { workflowVersionModel } from './workflow-version';

/** The models this capability owns, under the names the composition root registers them by. */
export interface WorkflowsModels {
  workflowDefinitions: ReturnType<typeof workflowDefinitionModel>;
  workflowVersions: ReturnType<typeof workflowVersionModel>;
}
