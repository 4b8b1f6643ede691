import {
  condition,
  continueAsNew,
  defineSignal,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { workflowNow } from '../workflow-clock';
import type { JobReservationActivities } from './activities';
import { JOB_ACTIVITY_OPTIONS, SWEEP_BATCH, SWEEP_ROUNDS_PER_RUN, SWEEP_TICK_MS } from './config';

/** The reservation was completed: stop its (pre-sweep) expiry timer. */
export const reservationEndedSignal = defineSignal('jobReservationEnded');

const { expireReservation, expireDueReservations } = proxyActivities<JobReservationActivities>(JOB_ACTIVITY_OPTIONS);

/**
 * The deployment's reservation expiry (one workflow, id `<prefix>job-reservation-sweep`): every
 * tick it ends the reservations past their window, so their slots return to the pool with no
 * caller. A reservation costs no workflow start; the API also decides expiry itself (valid
 * while now < expires_at), so this only bounds how long an expired slot stays taken.
 */
export async function jobReservationSweepWorkflow(input: { tickMs?: number; rounds?: number } = {}): Promise<void> {
  const tickMs = input.tickMs ?? SWEEP_TICK_MS;
  const rounds = input.rounds ?? SWEEP_ROUNDS_PER_RUN;
  for (let round = 0; round < rounds; round++) {
    const { seen } = await expireDueReservations(new Date(workflowNow()).toISOString(), SWEEP_BATCH);
    if (seen < SWEEP_BATCH) await sleep(tickMs);
  }
  await continueAsNew<typeof jobReservationSweepWorkflow>(input);
}

/**
 * The expiry timer of one reservation (workflow id = reservation id), as reservations had
 * before the sweep: no longer started, kept registered so the ones in flight finish. A
 * completion signals it to stop; otherwise at the end of the window the reservation expires and
 * its slot returns to the pool, unless a completion won the race in the store (the outcome row decides).
 */
export async function jobReservationWorkflow(input: {
  reservationId: string;
  windowMs: number;
}): Promise<'completed' | 'expired'> {
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
