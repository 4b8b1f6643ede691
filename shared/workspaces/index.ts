// The face of the workspaces capability: everything other folders use of it. Code outside
// shared/workspaces/ imports this file, never the files behind it (house/capability-face).
export { BudgetBearerAuth } from './budget-bearer';
export { BudgetChargeRepository } from './budget-charges';
export type { WorkspacesModels } from './models/index';
export { accessChanges, type GroupAccess, WorkspaceRepository } from './repository';
export { workspaceAccount } from './types';
