export { callbackMessageId } from '../../shared/webhook-runs/types';

export function callbackWorkflowId(runId: string): string {
  return `callback:${runId}`;
}

export function callbackReplayWorkflowId(replayId: string): string {
  return `callback-replay:${replayId}`;
}
