import { condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { JobReservationActivities } from './activities';
import { JOB_ACTIVITY_OPTIONS } from './config';
import { reservationEndedSignal } from './signals';

const { expireReservation } = proxyActivities<JobReservationActivities>(JOB_ACTIVITY_OPTIONS);

/**
 * The expiry timer of one reservation (workflow id = reservation id). A completion signals it
 * to stop; otherwise at the end of the window the reservation expires and its slot returns to
 * the pool, unless a completion won the race in the store (the outcome row decides).
 */
export async function jobReservationWorkflow(input: { reservationId: string; windowMs: number }): Promise<'completed' | 'expired'> {
  let ended = false;
  setHandler(reservationEndedSignal, () => {
    ended = true;
  });
  if (await condition(() => ended, input.windowMs)) {
    upsertSearchAttributes({ FlowStatus: ['completed'] });
    return 'completed';
  }
  const { expired } = await expireReservation(input.reservationId);
  upsertSearchAttributes({ FlowStatus: [expired ? 'expired' : 'completed'] });
  return expired ? 'expired' : 'completed';
}
