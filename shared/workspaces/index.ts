// The face of the workspaces capability: everything other folders use of it. Code outside
// shared/workspaces/ imports this file, never the files behind it (house/capability-face).
export { BudgetBearerAuth } from './budget-bearer';
export { BudgetChargeRepository } from './budget-charges';
export { accessChanges, type GroupAccess, WorkspaceRepository } from './repository';
export { workspaceAccount } from './types';
