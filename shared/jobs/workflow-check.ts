import { validateWorkflowGraph, WorkflowRepository, type WorkflowsModels as Models } from '../workflows/index';
import type { CheckResult } from './rules';

/** The workflow_creation check: the named workflow exists, is published, and its latest published graph is valid. */
export type WorkflowCheck = (
  workflowId: string,
  ctx?: { jobId: string; wallet: string; reservationId: string },
) => Promise<CheckResult>;

const NAME = 'workflow_published_and_valid';

export function createWorkflowCheck(models: Pick<Models, 'workflowDefinitions' | 'workflowVersions'>): WorkflowCheck {
  const workflows = new WorkflowRepository(models);
  return async (workflowId) => {
    const def = await workflows.get(workflowId);
    if (!def) return { name: NAME, status: 'failed', detail: `no workflow ${workflowId}` };
    if (def.status !== 'published' || def.versions.length === 0)
      return { name: NAME, status: 'failed', detail: `workflow ${workflowId} is not published` };
    const runnable = await workflows.runnable(workflowId);
    const problems = runnable ? validateWorkflowGraph(runnable.nodes, runnable.edges, runnable.credentials) : [];
    if (problems.length > 0)
      return {
        name: NAME,
        status: 'failed',
        detail: `version ${runnable!.version} is not valid: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      };
    return {
      name: NAME,
      status: 'passed',
      detail: `workflow ${workflowId} version ${runnable!.version} is published and valid`,
    };
  };
}
