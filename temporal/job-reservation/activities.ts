import type { Models } from '../../shared/db';
import { JobRepository } from '../../shared/jobs/repository';
import { endUncompleted } from '../../shared/jobs/slots';

/** Ends a reservation at the end of its window, once; the timer is the workflow's. */
export function createJobReservationActivities(deps: { models: Models }) {
  const jobs = new JobRepository(deps.models);
  return {
    async expireReservation(reservationId: string): Promise<{ expired: boolean }> {
      const reservation = await jobs.getReservation(reservationId);
      if (!reservation) return { expired: false };
      return { expired: await endUncompleted(jobs, reservation, 'expired', new Date()) };
    },
  };
}

export type JobReservationActivities = ReturnType<typeof createJobReservationActivities>;
