import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { TemporalHandle } from '../connection';
import { SA } from '../search-attributes';
import { CREDITS_QUEUE, EXPIRY_SCHEDULE_ID, EXPIRY_SWEEP_EVERY } from './config';
import { expirySweepWorkflowId } from './ids';
import type { ExpirySweepResult } from './workflows';

export function expiryScheduleId(temporal: TemporalHandle): string {
  return `${temporal.prefix}${EXPIRY_SCHEDULE_ID}`;
}

/** Creates the recurring sweep once; later calls (every worker start) find it there. */
export async function ensureExpirySchedule(temporal: TemporalHandle): Promise<void> {
  try {
    await temporal.client.schedule.create({
      scheduleId: expiryScheduleId(temporal),
      spec: { intervals: [{ every: EXPIRY_SWEEP_EVERY }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '10 minutes' },
      action: {
        type: 'startWorkflow',
        workflowType: 'creditExpirySweepWorkflow',
        workflowId: expirySweepWorkflowId('scheduled'),
        taskQueue: temporal.queue(CREDITS_QUEUE),
        typedSearchAttributes: [{ key: SA.flowKind, value: 'credit_expiry_sweep' }],
      },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

/** Runs a sweep now and waits for it (operator CLI, tests). */
export async function runExpirySweep(temporal: TemporalHandle, tag: string): Promise<ExpirySweepResult> {
  return temporal.client.workflow.execute('creditExpirySweepWorkflow', {
    taskQueue: temporal.queue(CREDITS_QUEUE),
    workflowId: expirySweepWorkflowId(tag),
    typedSearchAttributes: [{ key: SA.flowKind, value: 'credit_expiry_sweep' }],
  });
}
