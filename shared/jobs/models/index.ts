import type { jobModel } from './job';
import type { jobCompletionModel } from './job-completion';
import type { jobReservationModel, jobReservationOutcomeModel } from './job-reservation';
import type { jobFreeSlotModel, jobSlotCounterModel, jobSlotModel } from './job-slot';
import type { jobWorkflowModel } from './job-workflow';

/** The models this capability owns, under the names the composition root registers them by. */
export interface JobsModels {
  jobs: ReturnType<typeof jobModel>;
  jobSlots: ReturnType<typeof jobSlotModel>;
  jobSlotCounters: ReturnType<typeof jobSlotCounterModel>;
  jobFreeSlots: ReturnType<typeof jobFreeSlotModel>;
  jobReservations: ReturnType<typeof jobReservationModel>;
  jobReservationOutcomes: ReturnType<typeof jobReservationOutcomeModel>;
  jobCompletions: ReturnType<typeof jobCompletionModel>;
  jobWorkflows: ReturnType<typeof jobWorkflowModel>;
}
