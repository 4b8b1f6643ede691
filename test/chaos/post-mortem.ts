/**
 * What the soak prints when the store has not gone quiet within the healers' bound: the runs and
 * payments still open, what Temporal says of their executions (the pending workflow task and its
 * attempts, each pending activity with its attempts and last failure), who polls their task
 * queues, and each process's restarts and last lines. The checker says what broke; this says
 * where the work stalled, so a failure on a machine we cannot reach explains itself.
 */
import { Client, Connection } from '@temporalio/client';
import { optionalTsToDate } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { settlementWorkflowId } from '../../temporal/x402-settlement/ids';
import type { ChaosStack } from './stack';

const SHOWN = 5;
const { PendingActivityState: ActivityState, PendingWorkflowTaskState: TaskState } = temporal.api.enums.v1;
const MID_WAY = ['verified', 'submitted', 'settled', 'delivering'];

export async function postMortem(stack: ChaosStack, namespace = 'default'): Promise<string[]> {
  const { models } = stack.db;
  const out: string[] = [];
  const [runs, payments] = await Promise.all([
    models.webhookRuns
      .find({ status: { $in: ['queued', 'running'] } }, { status: 1, created_at: 1, updated_at: 1 })
      .sort({ created_at: 1 })
      .limit(SHOWN)
      .lean<Array<{ _id: string; status: string; created_at: Date; updated_at: Date }>>()
      .exec(),
    models.x402Payments
      .find({ status: { $in: MID_WAY } }, { status: 1, purpose: 1, created_at: 1, updated_at: 1 })
      .sort({ created_at: 1 })
      .limit(SHOWN)
      .lean<Array<{ _id: string; status: string; purpose?: { kind?: string }; created_at: Date; updated_at: Date }>>()
      .exec(),
  ]).catch((err: Error) => {
    out.push(`the store did not answer: ${err.message}`);
    return [[], []] as const;
  });
  const executions = [
    ...runs.map((r) => ({ label: `run ${r._id} ${r.status} since ${r.updated_at.toISOString()}`, workflowId: r._id })),
    ...payments.map((p) => ({
      label: `payment ${p._id.slice(-12)} (${p.purpose?.kind}) ${p.status} since ${p.updated_at.toISOString()}`,
      workflowId: settlementWorkflowId(p._id),
    })),
  ];

  out.push(...(await describeExecutions(stack.temporalAddress, namespace, executions)));
  for (const p of stack.processes())
    out.push(`${p.name}: started again ${p.restarts} times; last lines:\n${p.tail.split('\n').slice(-8).join('\n')}`);
  return out;
}

/** Each execution's state in Temporal, and who polls the task queues they are on: a line each. */
export async function describeExecutions(
  address: string,
  namespace: string,
  executions: Array<{ label: string; workflowId: string }>,
): Promise<string[]> {
  const out: string[] = [];
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 5_000 });
    const client = new Client({ connection, namespace });
    const queues = new Set<string>();
    for (const e of executions) {
      try {
        const d = await client.workflow.getHandle(e.workflowId).describe();
        queues.add(d.taskQueue);
        const wft = d.raw.pendingWorkflowTask;
        const acts = (d.raw.pendingActivities ?? []).map(
          (a) =>
            `${a.activityType?.name} attempt ${a.attempt} ${stateName(ActivityState[a.state ?? 0])}${a.lastFailure?.message ? ` (${a.lastFailure.message.slice(0, 160)})` : ''}`,
        );
        out.push(
          `${e.label}: execution ${d.status.name}, ${d.historyLength} events` +
            (wft ? `, workflow task ${stateName(TaskState[wft.state ?? 0])} attempt ${wft.attempt}` : '') +
            (acts.length ? `, activities: ${acts.join('; ')}` : ''),
        );
      } catch (err) {
        out.push(`${e.label}: no execution (${(err as Error).message.slice(0, 120)})`);
      }
    }
    for (const name of queues) {
      for (const taskQueueType of [1, 2] as const) {
        const q = await client.workflowService.describeTaskQueue({ namespace, taskQueue: { name }, taskQueueType });
        const pollers = (q.pollers ?? []).map(
          (p) => `${p.identity} at ${optionalTsToDate(p.lastAccessTime)?.toISOString() ?? '?'}`,
        );
        out.push(
          `queue ${name} (${taskQueueType === 1 ? 'workflow' : 'activity'}): pollers ${pollers.join(', ') || 'none'}`,
        );
      }
    }
  } catch (err) {
    out.push(`Temporal did not answer: ${(err as Error).message.slice(0, 200)}`);
  } finally {
    await connection?.close();
  }
  return out;
}

/** `PENDING_ACTIVITY_STATE_STARTED` → `STARTED`. */
function stateName(name: string | undefined): string {
  return (name ?? '?').replace(/^PENDING_[A-Z_]+_STATE_/, '');
}
