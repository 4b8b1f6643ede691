import { condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { workflowNow } from '../workflow-clock';
import type { ScheduleLeaseActivities } from './activities';
import { EXPIRE_OPTIONS } from './config';
import { leaseEndedSignal } from './signals';

const { expireClaim } = proxyActivities<ScheduleLeaseActivities>(EXPIRE_OPTIONS);

export interface LeaseInput {
  claimId: string;
  scheduleId: string;
  budgetId: string;
  dueAt: string;
  leaseExpiresAt: string;
}

export interface LeaseResult {
  claimId: string;
  ended: 'released' | 'advanced' | 'expired';
  /** True when the end came by signal before the lease ran out. */
  signalled: boolean;
}

/**
 * Holds one claim's lease: sleeps until lease_expires_at, then returns the occurrence to the due
 * queue (records the claim as expired) unless a release or advance signalled first. The API
 * refuses an expired claim by the clock anyway; this makes the end visible and durable.
 */
export async function scheduleLeaseWorkflow(input: LeaseInput): Promise<LeaseResult> {
  let signalled: 'released' | 'advanced' | undefined;
  setHandler(leaseEndedSignal, ({ kind }) => {
    signalled ??= kind;
  });
  const ms = Math.max(0, new Date(input.leaseExpiresAt).getTime() - workflowNow());
  if (await condition(() => signalled !== undefined, ms)) {
    upsertSearchAttributes({ FlowStatus: [signalled!] });
    return { claimId: input.claimId, ended: signalled!, signalled: true };
  }
  const ended = await expireClaim(input.claimId, input.scheduleId, new Date(workflowNow()).toISOString());
  upsertSearchAttributes({ FlowStatus: [ended] });
  return { claimId: input.claimId, ended, signalled: false };
}
