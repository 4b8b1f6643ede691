import type { SessionEndReason, SessionInput, SessionState } from './types';

/** What a session's execution is started with; the engine adds the queues it runs on. */
export type SessionStart = Omit<SessionInput, 'queues'>;

/**
 * A session's live execution, as the session service sees it. A port, so the service needs no
 * workflow engine; temporal/workflow-session/client.ts implements it.
 */
export interface SessionEngine {
  /** Starts the session once (a second start with the same id finds the first). */
  start(input: SessionStart): Promise<void>;
  /** The state and results so far. */
  query(sessionId: string): Promise<SessionState>;
  /** The wallet did something with the session: its idle timer starts again. */
  touch(sessionId: string): Promise<void>;
  /** Ends the session and answers with its final state (written to the store before the answer). */
  end(sessionId: string, reason?: SessionEndReason): Promise<SessionState>;
}
