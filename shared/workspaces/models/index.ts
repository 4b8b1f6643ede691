import type { agentGroupModel } from './agent-group';
import type { agentGroupTokenModel } from './agent-group-token';
import type { approvalRequestModel } from './approval-request';
import type { budgetModel } from './budget';
import type { budgetChargeModel } from './budget-charge';
import type { budgetWorkflowModel } from './budget-workflow';
import type { budgetWorkflowPinModel } from './budget-workflow-pin';
import type { credentialModel } from './credential';
import type { workspaceModel } from './workspace';
import type { workspaceApiKeyModel } from './workspace-api-key';

/** The models this capability owns, under the names the composition root registers them by. */
export interface WorkspacesModels {
  workspaces: ReturnType<typeof workspaceModel>;
  budgets: ReturnType<typeof budgetModel>;
  budgetWorkflows: ReturnType<typeof budgetWorkflowModel>;
  budgetWorkflowPins: ReturnType<typeof budgetWorkflowPinModel>;
  workspaceApiKeys: ReturnType<typeof workspaceApiKeyModel>;
  agentGroups: ReturnType<typeof agentGroupModel>;
  agentGroupTokens: ReturnType<typeof agentGroupTokenModel>;
  credentials: ReturnType<typeof credentialModel>;
  approvalRequests: ReturnType<typeof approvalRequestModel>;
  budgetCharges: ReturnType<typeof budgetChargeModel>;
}
