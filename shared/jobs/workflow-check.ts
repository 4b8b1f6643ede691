import type { CheckResult } from './rules';

/** The workflow_creation check: the named workflow exists, is published, and its latest published graph is valid. */
export type WorkflowCheck = (
  workflowId: string,
  ctx?: { jobId: string; wallet: string; reservationId: string },
) => Promise<CheckResult>;
