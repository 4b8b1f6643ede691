import type { CheckResult } from './rules';

/**
 * The workflow_creation check: the workflow named in the completion exists, is published and
 * its graph is valid. Workflow definitions belong to branch `runs` (CONTRACTS.md,
 * WorkflowRepository); until they are part of this build the check reports `skipped`, which
 * sends the completion to an operator's review instead of paying on an unchecked claim.
 */
export type WorkflowCheck = (workflowId: string, ctx?: { jobId: string; wallet: string }) => Promise<CheckResult>;

export const workflowDefinitionsUnavailable: WorkflowCheck = async (workflowId) => ({
  name: 'workflow_published_and_valid',
  status: 'skipped',
  detail: `workflow ${workflowId} could not be checked: workflow definitions are not part of this build yet; an operator reviews it`,
});
