import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { TemporalHandle } from '../connection';
import { SA } from '../search-attributes';
import { SWEEP_EVERY, SWEEP_QUEUE, SWEEP_SCHEDULE_ID } from './config';
import { settlementSweepWorkflowId } from './ids';
import type { SettlementSweepResult } from './workflows';

export function settlementSweepScheduleId(temporal: TemporalHandle): string {
  return `${temporal.prefix}${SWEEP_SCHEDULE_ID}`;
}

/** Creates the recurring sweep once; later calls (every settlements worker start) find it there. */
export async function ensureSettlementSweepSchedule(temporal: TemporalHandle, staleSeconds: number): Promise<void> {
  try {
    await temporal.client.schedule.create({
      scheduleId: settlementSweepScheduleId(temporal),
      spec: { intervals: [{ every: SWEEP_EVERY }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '10 minutes' },
      action: {
        type: 'startWorkflow',
        workflowType: 'x402SettlementSweepWorkflow',
        workflowId: settlementSweepWorkflowId('scheduled'),
        taskQueue: temporal.queue(SWEEP_QUEUE),
        args: [{ staleSeconds }],
        typedSearchAttributes: [{ key: SA.flowKind, value: 'x402_settlement_sweep' }],
      },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

/** Runs a sweep now and waits for it (operator CLI, tests). */
export async function runSettlementSweep(
  temporal: TemporalHandle,
  tag: string,
  staleSeconds: number,
): Promise<SettlementSweepResult> {
  return temporal.client.workflow.execute('x402SettlementSweepWorkflow', {
    taskQueue: temporal.queue(SWEEP_QUEUE),
    workflowId: settlementSweepWorkflowId(tag),
    args: [{ staleSeconds }],
    typedSearchAttributes: [{ key: SA.flowKind, value: 'x402_settlement_sweep' }],
  });
}
