import type { Client } from '@temporalio/client';
import { summarize } from './common';

/**
 * Where one workflow execution's wall time goes, in ms, from the server's event timestamps and
 * the client's clock (same machine):
 *   before_start  client sent the request → WorkflowExecutionStarted (HTTP and the API's own
 *                 work for a trigger; the start call alone for a bare workflow);
 *   wft_queue / act_queue    task scheduled → started (matching hands it to a poller), summed;
 *   wft_worker / act_worker  task started → completed (the worker, local activities included), summed;
 *   between       the rest inside the execution (server transactions between tasks);
 *   after_close   execution closed → the client saw the result;
 *   tasks         workflow tasks + activity tasks dispatched.
 */
export interface Timeline {
  before_start: number;
  wft_queue: number;
  wft_worker: number;
  act_queue: number;
  act_worker: number;
  between: number;
  after_close: number;
  tasks: number;
}

const KEYS: Array<keyof Timeline> = [
  'before_start',
  'wft_queue',
  'wft_worker',
  'act_queue',
  'act_worker',
  'between',
  'after_close',
  'tasks',
];

const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

export async function timelineOf(
  client: Client,
  workflowId: string,
  sentAt: number,
  resultAt: number,
): Promise<Timeline> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const at = new Map<number, number>();
  const t: Timeline = {
    before_start: 0,
    wft_queue: 0,
    wft_worker: 0,
    act_queue: 0,
    act_worker: 0,
    between: 0,
    after_close: 0,
    tasks: 0,
  };
  for (const e of events) {
    const now = ms(e.eventTime);
    at.set(Number(e.eventId), now);
    const since = (id: unknown) => now - (at.get(Number(id)) ?? now);
    if (e.workflowTaskStartedEventAttributes) {
      t.wft_queue += since(e.workflowTaskStartedEventAttributes.scheduledEventId);
      t.tasks++;
    }
    if (e.workflowTaskCompletedEventAttributes)
      t.wft_worker += since(e.workflowTaskCompletedEventAttributes.startedEventId);
    if (e.activityTaskStartedEventAttributes) {
      t.act_queue += since(e.activityTaskStartedEventAttributes.scheduledEventId);
      t.tasks++;
    }
    if (e.activityTaskCompletedEventAttributes)
      t.act_worker += since(e.activityTaskCompletedEventAttributes.startedEventId);
  }
  const started = ms(events[0]?.eventTime);
  const closed = ms(events[events.length - 1]?.eventTime);
  t.before_start = started - sentAt;
  t.after_close = resultAt - closed;
  t.between = closed - started - t.wft_queue - t.wft_worker - t.act_queue - t.act_worker;
  return t;
}

/** Each part's median over many executions. */
export function medianTimeline(all: Timeline[]): Timeline {
  return Object.fromEntries(
    KEYS.map((k) => [k, all.length ? Math.round(summarize(all.map((t) => t[k])).p50Ms * 10) / 10 : NaN]),
  ) as unknown as Timeline;
}

export function formatTimeline(t: Timeline): string {
  return KEYS.map((k) => `${k} ${t[k]}`).join(', ');
}
