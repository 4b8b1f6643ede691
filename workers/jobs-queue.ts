import { createJobWorkflowCheck } from '../shared/jobs/job-workflow-check';
import { createJobReservationActivities } from '../temporal/job-reservation/activities';
import { createJobVerificationActivities } from '../temporal/job-verification/activities';
import { JOBS_QUEUE } from '../temporal/job-verification/config';
import { reposOf, type WorkerDeps } from './deps';
import type { QueueDefinition } from './queue';

/** The jobs queue's activities over the process's repositories (tests build them here too). */
export function jobActivities(deps: WorkerDeps) {
  const repos = reposOf(deps);
  return {
    ...createJobReservationActivities(repos),
    ...createJobVerificationActivities({
      ...repos,
      creditExpiryDays: deps.config.creditExpiryDays,
      checkWorkflow: createJobWorkflowCheck({ links: repos.jobWorkflows, workflows: repos.workflows }),
    }),
  };
}

/** Job reservation timers and completion verifications. */
export const jobsQueue: QueueDefinition = { key: 'jobs', taskQueue: JOBS_QUEUE, activities: jobActivities };
