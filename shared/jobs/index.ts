// The face of the jobs capability: everything other folders use of it. Code outside
// shared/jobs/ imports this file, never the files behind it (house/capability-face).
export type { JobEngine, VerificationStart } from './engine';
export { createJobWorkflowCheck } from './job-workflow-check';
export { JobWorkflowRepository } from './job-workflow-repository';
export { nextVersion } from './job-workflow-rules';
export {
  jobWorkflowCreateSchema,
  jobWorkflowPublishSchema,
  jobWorkflowUpdateSchema,
  jobWorkflowViewSchema,
} from './job-workflow-schemas';
export type { JobWorkflowView } from './job-workflow-service';
export type { VerificationStep } from './models/job-completion';
export type { JobWorkflowDoc } from './models/job-workflow';
export { JobOperations } from './operations';
export { JobRepository } from './repository';
export {
  afterChecks,
  type CheckResult,
  type JobAction,
  LIST_LIMIT,
  PLATFORM_ACCOUNT,
  rewardGrantId,
  rewardSpendRequestId,
  socialPostChecks,
} from './rules';
export {
  completeBodySchema,
  completionViewSchema,
  emptyBodySchema,
  jobStatusSchema,
  jobViewSchema,
  listBodySchema,
  reservationViewSchema,
} from './schemas';
export { endUncompleted, expireDue } from './slots';
export type { JobCompletionDoc, JobDoc, Reservation } from './types';
export type { WorkflowCheck } from './workflow-check';
