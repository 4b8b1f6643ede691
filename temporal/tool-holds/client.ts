import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { TemporalHandle } from '../connection';
import { SA } from '../search-attributes';
import { HOLD_HEAL_EVERY, HOLD_HEAL_SCHEDULE_ID, TOOLS_QUEUE } from './config';
import { holdHealWorkflowId } from './ids';
import { type HoldHealResult, toolHoldHealWorkflow } from './workflows';

export function holdHealScheduleId(temporal: TemporalHandle): string {
  return `${temporal.prefix}${HOLD_HEAL_SCHEDULE_ID}`;
}

/** Creates the recurring healer once; later calls (every worker start) find it there. */
export async function ensureHoldHealSchedule(temporal: TemporalHandle, olderThanMinutes: number): Promise<void> {
  try {
    await temporal.client.schedule.create({
      scheduleId: holdHealScheduleId(temporal),
      spec: { intervals: [{ every: HOLD_HEAL_EVERY }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '10 minutes' },
      action: {
        type: 'startWorkflow',
        workflowType: toolHoldHealWorkflow,
        args: [olderThanMinutes],
        workflowId: holdHealWorkflowId('scheduled'),
        taskQueue: temporal.queue(TOOLS_QUEUE),
        typedSearchAttributes: [{ key: SA.flowKind, value: 'tool_hold_heal' }],
      },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

/** Heals now and waits for the result (operator CLI, tests). */
export async function runHoldHeal(
  temporal: TemporalHandle,
  tag: string,
  olderThanMinutes: number,
): Promise<HoldHealResult> {
  return temporal.client.workflow.execute(toolHoldHealWorkflow, {
    args: [olderThanMinutes],
    taskQueue: temporal.queue(TOOLS_QUEUE),
    workflowId: holdHealWorkflowId(tag),
    typedSearchAttributes: [{ key: SA.flowKind, value: 'tool_hold_heal' }],
  });
}
