/** A completion whose verification is started (its search attributes name wallet and job). */
export interface VerificationStart {
  completionId: string;
  jobId: string;
  wallet: string;
}

/**
 * The durable parts of jobs, as the job service sees them: the reservation expiry sweep and a
 * completion's verification. A port; the job-reservation and job-verification
 * clients in temporal/ implement it.
 */
export interface JobEngine {
  /** Makes sure the expiry sweep runs before a reservation relies on it; throws when it cannot. */
  ensureReservationSweep(): Promise<void>;
  /** Starts a completion's verification once (a second start finds the first). */
  startVerification(c: VerificationStart): Promise<void>;
}
