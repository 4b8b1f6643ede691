export { JOBS_QUEUE, JOB_ACTIVITY_OPTIONS } from '../job-verification/config';
