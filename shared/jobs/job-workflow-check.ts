import { validateWorkflowGraph, type WorkflowRepository } from '../workflows/index';
import type { JobWorkflowRepository } from './job-workflow-repository';
import type { CheckResult } from './rules';
import type { WorkflowCheck } from './workflow-check';

const NAME = 'workflow_published_and_valid';

/**
 * The verification check of a workflow_creation completion (the jobs branch's WorkflowCheck):
 * the workflow was made for this job by this wallet under the completed reservation, has a published version, and that
 * version's graph passes validateWorkflowGraph. Anything else fails the check.
 */
export function createJobWorkflowCheck({
  links,
  workflows,
}: {
  links: JobWorkflowRepository;
  workflows: WorkflowRepository;
}): WorkflowCheck {
  return async (workflowId, ctx): Promise<CheckResult> => {
    const fail = (detail: string): CheckResult => ({ name: NAME, status: 'failed', detail });
    const link = await links.get(workflowId);
    if (!link) return fail(`workflow ${workflowId} was not created through this job's workflow endpoints`);
    if (ctx && (link.job_id !== ctx.jobId || link.wallet !== ctx.wallet))
      return fail(`workflow ${workflowId} belongs to another job or wallet`);
    // Made under this reservation: a wallet's earlier workflow cannot be completed again under a new one.
    if (ctx && link.reservation_id !== ctx.reservationId)
      return fail(`workflow ${workflowId} was created under another reservation (${link.reservation_id}) of this job`);
    const latest = await workflows.latestPublished(workflowId);
    if (!latest) return fail(`workflow ${workflowId} has no published version; publish it before completing`);
    const problems = validateWorkflowGraph(latest.nodes, latest.edges, latest.credentials);
    if (problems.length)
      return fail(
        `version ${latest.version} is not valid: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      );
    return {
      name: NAME,
      status: 'passed',
      detail: `version ${latest.version} published ${latest.published_at.toISOString()} with ${latest.nodes.length} node(s)`,
    };
  };
}
