/** A session's workflow id is the session id (`wss_…`): a business id. */
export function sessionWorkflowId(sessionId: string): string {
  return sessionId;
}

/** The invoker's request id of a session's tool node: charged at most once per (wallet, session, node). */
export function sessionToolRequestId(sessionId: string, nodeId: string): string {
  return `session:${sessionId}:${nodeId}`;
}
