import type { TemporalHandle } from '../connection';
import { SA } from '../search-attributes';
import type { PingResult } from './activities';
import { PING_QUEUE } from './config';
import { pingWorkflowId } from './ids';

/** Starts a ping and waits for it; used by the health details page and `make dev`. */
export async function runPing(temporal: TemporalHandle, tag: string): Promise<PingResult> {
  return temporal.client.workflow.execute('pingWorkflow', {
    taskQueue: temporal.queue(PING_QUEUE),
    workflowId: pingWorkflowId(tag),
    workflowExecutionTimeout: '1 minute',
    typedSearchAttributes: [{ key: SA.flowKind, value: 'ping' }],
  });
}
