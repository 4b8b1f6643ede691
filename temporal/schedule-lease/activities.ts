import type { Models } from '../../shared/db';
import { requeueIfOpen } from '../../shared/schedules/lifecycle';
import { ScheduleRepository } from '../../shared/schedules/repository';

export interface ScheduleLeaseDeps {
  models: Models;
}

export function createScheduleLeaseActivities(deps: ScheduleLeaseDeps) {
  const repo = new ScheduleRepository(deps.models);
  return {
    /**
     * Ends the claim as expired unless a release or advance ended it first; idempotent.
     * Returns how the claim ended. The schedule's open occurrence goes back to the due queue
     * with the catch-up computed at `nowIso`, the lease workflow's time (not this worker's
     * clock), so the occurrence handed out next is the latest one due when the lease ran out.
     * After a release or advance whose signal never came (the API stopped between recording the
     * end and signalling), this repairs a queue write the API may not have made either.
     */
    async expireClaim(claimId: string, scheduleId: string, nowIso: string): Promise<'released' | 'advanced' | 'expired'> {
      const at = new Date(nowIso);
      const { end } = await repo.endClaim({ _id: claimId, schedule_id: scheduleId }, 'expired', at, { reason: 'lease_expired' });
      const s = await repo.get(scheduleId);
      if (s) await requeueIfOpen(repo, s, end.kind === 'advanced' ? 'scheduled' : end.kind, at);
      return end.kind;
    },
  };
}

export type ScheduleLeaseActivities = ReturnType<typeof createScheduleLeaseActivities>;
