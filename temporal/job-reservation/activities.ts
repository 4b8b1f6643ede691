import type { Models } from '../../shared/composition/models';
import { JobRepository } from '../../shared/jobs/repository';
import { endUncompleted, expireDue } from '../../shared/jobs/slots';

export function createJobReservationActivities(deps: { models: Models; jobs?: JobRepository }) {
  const jobs = deps.jobs ?? new JobRepository(deps.models);
  return {
    /** The sweep's round: ends reservations past their window at `now` (the workflow's clock). */
    async expireDueReservations(now: string, limit: number): Promise<{ seen: number; expired: number }> {
      return expireDue(jobs, new Date(now), limit);
    },

    /** Kept for the per-reservation timers started before the sweep (they still run to their end). */
    async expireReservation(reservationId: string): Promise<{ expired: boolean }> {
      const reservation = await jobs.getReservation(reservationId);
      if (!reservation) return { expired: false };
      return { expired: await endUncompleted(jobs, reservation, 'expired', new Date()) };
    },
  };
}

export type JobReservationActivities = ReturnType<typeof createJobReservationActivities>;
