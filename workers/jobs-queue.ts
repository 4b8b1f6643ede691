import { createJobWorkflowCheck } from '../shared/jobs/job-workflow-check';
import { createJobReservationActivities } from '../temporal/job-reservation/activities';
import { createJobVerificationActivities } from '../temporal/job-verification/activities';
import { JOBS_QUEUE } from '../temporal/job-verification/config';
import { reposOf } from './deps';
import type { QueueDefinition } from './queue';

/** Job reservation timers and completion verifications. */
export const jobsQueue: QueueDefinition = {
  key: 'jobs',
  taskQueue: JOBS_QUEUE,
  activities: (deps) => ({
    ...createJobReservationActivities({ models: deps.db.models, jobs: reposOf(deps).jobs }),
    ...createJobVerificationActivities({
      models: deps.db.models,
      ledger: reposOf(deps).ledger,
      jobs: reposOf(deps).jobs,
      creditExpiryDays: deps.config.creditExpiryDays,
      checkWorkflow: createJobWorkflowCheck({ links: reposOf(deps).jobWorkflows, workflows: reposOf(deps).workflows }),
    }),
  }),
};
