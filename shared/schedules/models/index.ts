import type { scheduleAdvanceModel } from './schedule-advance';
import type { scheduleClaimModel } from './schedule-claim';
import type { scheduleClaimEndModel } from './schedule-claim-end';
import type { schedulePauseModel } from './schedule-pause';
import type { workflowScheduleModel } from './workflow-schedule';

/** The models this capability owns, under the names the composition root registers them by. */
export interface SchedulesModels {
  workflowSchedules: ReturnType<typeof workflowScheduleModel>;
  scheduleClaims: ReturnType<typeof scheduleClaimModel>;
  scheduleClaimEnds: ReturnType<typeof scheduleClaimEndModel>;
  scheduleAdvances: ReturnType<typeof scheduleAdvanceModel>;
  schedulePauses: ReturnType<typeof schedulePauseModel>;
}
