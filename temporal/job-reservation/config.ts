export { JOB_ACTIVITY_OPTIONS, JOBS_QUEUE } from '../job-verification/config';

/** How late a reservation's slot may return to the pool with no caller (the API decides expiry exactly). */
export const SWEEP_TICK_MS = 1000;
/** Reservations ended per activity; a full batch is followed at once by the next. */
export const SWEEP_BATCH = 200;
/** Rounds before the sweep continues as new, so its history stays small (~11 events a round). */
export const SWEEP_ROUNDS_PER_RUN = 500;
/** How often an API process checks that the sweep is running (its first reserve always does). */
export const SWEEP_RECHECK_MS = 5 * 60 * 1000;
