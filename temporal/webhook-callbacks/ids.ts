export { callbackMessageId } from '../../shared/webhook-runs/callback-service';

export function callbackWorkflowId(runId: string): string {
  return `callback:${runId}`;
}

export function callbackReplayWorkflowId(replayId: string): string {
  return `callback-replay:${replayId}`;
}
