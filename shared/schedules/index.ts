// The face of the schedules capability: everything other folders use of it. Code outside
// shared/schedules/ imports this file, never the files behind it (house/capability-face).
export { claimStatus } from './claim-rules';
export { pauseSchedule, resumeSchedule } from './lifecycle';
export { buildSchedule } from './new-schedule';
export { type Schedule, ScheduleRepository } from './repository';
export { advanceBody, claimBodySchema, dueQuery, releaseBody, SCHEDULE_ID, scheduleIdParam } from './schemas';
export type { DueItem } from './service';
export type { ScheduleClaim } from './types';
