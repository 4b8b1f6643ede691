/** A session's workflow id is the session id (`wss_…`): a business id. */
export function sessionWorkflowId(sessionId: string): string {
  return sessionId;
}
