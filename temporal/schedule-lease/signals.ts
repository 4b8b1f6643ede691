import { defineSignal } from '@temporalio/workflow';

/** The claim ended before its lease ran out (sent by the API after it recorded the end). */
export const leaseEndedSignal = defineSignal<[{ kind: 'released' | 'advanced' }]>('leaseEnded');
