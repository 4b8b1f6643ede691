import { defineSignal } from '@temporalio/workflow';

/** The reservation was completed: stop the expiry timer. */
export const reservationEndedSignal = defineSignal('jobReservationEnded');
