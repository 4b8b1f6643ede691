import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { TemporalHandle } from '../connection';
import { SA } from '../search-attributes';
import { RUN_HEAL_EVERY, RUN_HEAL_QUEUE, RUN_HEAL_SCHEDULE_ID } from './config';
import { runHealWorkflowId } from './ids';
import { type RunHealResult, webhookRunHealWorkflow } from './workflows';

export function runHealScheduleId(temporal: TemporalHandle): string {
  return `${temporal.prefix}${RUN_HEAL_SCHEDULE_ID}`;
}

/** Creates the recurring healer once; later calls (every worker start) find it there. */
export async function ensureRunHealSchedule(temporal: TemporalHandle, staleSeconds: number): Promise<void> {
  try {
    await temporal.client.schedule.create({
      scheduleId: runHealScheduleId(temporal),
      spec: { intervals: [{ every: RUN_HEAL_EVERY }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '10 minutes' },
      action: {
        type: 'startWorkflow',
        workflowType: webhookRunHealWorkflow,
        args: [{ staleSeconds }],
        workflowId: runHealWorkflowId('scheduled'),
        taskQueue: temporal.queue(RUN_HEAL_QUEUE),
        typedSearchAttributes: [{ key: SA.flowKind, value: 'webhook_run_heal' }],
      },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

/** Heals now and waits for the result (operator CLI, tests). */
export async function runRunHeal(temporal: TemporalHandle, tag: string, staleSeconds: number): Promise<RunHealResult> {
  return temporal.client.workflow.execute(webhookRunHealWorkflow, {
    args: [{ staleSeconds }],
    taskQueue: temporal.queue(RUN_HEAL_QUEUE),
    workflowId: runHealWorkflowId(tag),
    typedSearchAttributes: [{ key: SA.flowKind, value: 'webhook_run_heal' }],
  });
}
