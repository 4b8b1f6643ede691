import type { Models } from '../../shared/composition/models';
import { ScheduleRepository } from '../../shared/schedules/repository';

export interface ScheduleLeaseDeps {
  models: Models;
  /** The process's one instance (the composition root's); built here when absent (tests). */
  schedules?: ScheduleRepository;
}

export function createScheduleLeaseActivities(deps: ScheduleLeaseDeps) {
  const repo = deps.schedules ?? new ScheduleRepository(deps.models);
  return {
    /**
     * Ends the claim as expired unless a release or advance ended it first; idempotent.
     * Returns how the claim ended. Nothing else to do: the occurrence is due again from the
     * schedule document once no active claim holds it (this workflow only drains leases an older
     * release started; docs/architecture.md).
     */
    async expireClaim(
      claimId: string,
      scheduleId: string,
      nowIso: string,
    ): Promise<'released' | 'advanced' | 'expired'> {
      const { end } = await repo.endClaim({ _id: claimId, schedule_id: scheduleId }, 'expired', new Date(nowIso), {
        reason: 'lease_expired',
      });
      return end.kind;
    },
  };
}

export type ScheduleLeaseActivities = ReturnType<typeof createScheduleLeaseActivities>;
