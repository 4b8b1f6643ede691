import type { Db } from '../shared/composition/store';
import { WorkflowRepository } from '../shared/workflows/repository';
import { WorkspaceRepository } from '../shared/workspaces/repository';

/**
 * What the runs benchmarks trigger: a workspace, a budget listing a one-template-node workflow,
 * and an agent group on it. Its `agt_` token and the workflow's id.
 */
export async function greeterGroup(
  db: Db,
  credentialsKey: Buffer | undefined,
): Promise<{ token: string; workflowId: string }> {
  const accounts = new WorkspaceRepository(db.models, credentialsKey);
  const ws = await accounts.createWorkspace({ name: 'bench' });
  const { budget } = await accounts.createBudget({ workspaceId: ws._id, name: 'bench' });
  const group = await accounts.createGroup({ budgetId: budget._id, name: 'bench agents' });
  const wf = await new WorkflowRepository(db.models).create(
    { name: 'greeter', nodes: [{ id: 'greet', type: 'template', template: 'Hello, {{prompt}}!' }], edges: [] },
    { workspaceId: ws._id },
  );
  await accounts.addWorkflowToBudget(budget._id, wf._id);
  return { token: group.token, workflowId: wf._id };
}
