import type { TemporalHandle } from '../connection';
import { callbackProgressQuery, type CallbackProgress } from './definitions';
import { callbackWorkflowId } from './ids';

/** Where a run's callback delivery is (attempts, waits, status). */
export function callbackProgress(temporal: TemporalHandle, runId: string): Promise<CallbackProgress> {
  return temporal.client.workflow.getHandle(callbackWorkflowId(runId)).query(callbackProgressQuery);
}
