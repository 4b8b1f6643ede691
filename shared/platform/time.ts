/** Lengths of time in milliseconds, for date arithmetic on UTC instants (days and hours have fixed lengths in UTC). */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
