import { defineQuery } from '@temporalio/workflow';

export interface CallbackProgress {
  attempts: number;
  /** Milliseconds waited before each retry, in order. */
  waits: number[];
  status: 'pending' | 'delivered' | 'failed';
}

export const callbackProgressQuery = defineQuery<CallbackProgress>('callbackProgress');
