import type { TemporalHandle } from '../connection';
import { type CallbackProgress, callbackProgressQuery } from './definitions';
import { callbackWorkflowId } from './ids';

/** Where a run's callback delivery is (attempts, waits, status). */
export function callbackProgress(temporal: TemporalHandle, runId: string): Promise<CallbackProgress> {
  return temporal.client.workflow.getHandle(callbackWorkflowId(runId)).query(callbackProgressQuery);
}
