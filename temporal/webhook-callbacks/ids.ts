export function callbackWorkflowId(runId: string): string {
  return `callback:${runId}`;
}

/** The Standard Webhooks message id of a run's callback: the same on every attempt. */
export function callbackMessageId(runId: string): string {
  return `msg_${runId}`;
}
