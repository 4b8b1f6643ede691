import type { JobEngine } from '../jobs/engine';
import type { SettlementEngine } from '../payments/settlement-engine';
import type { RunEngine } from '../webhook-runs/engine';
import type { SessionEngine } from '../workflow-sessions/engine';

/**
 * Every port the services use to start or ask durable executions, in one bundle. Declared here so
 * shared/ never imports the workflow engine; temporal/engines.ts builds it from a client.
 */
export interface Engines {
  runs: RunEngine;
  settlements: SettlementEngine;
  jobs: JobEngine;
  sessions: SessionEngine;
  /** Whether the engine answers now (health); false rather than a throw. */
  up(): Promise<boolean>;
}

/**
 * Engines for a process that has none (the offline OpenAPI document, commands that never start
 * an execution): any use is a programming error, and says so.
 */
export function noEngines(): Engines {
  const none = (): never => {
    throw new Error('this process has no workflow engine');
  };
  return {
    runs: { start: none, hasExecution: none, cancel: none, replayCallback: none, awaitEnd: none },
    settlements: { start: none, await: none, ensureStarted: none, exists: none },
    jobs: { ensureReservationSweep: none, startVerification: none },
    sessions: { start: none, query: none, touch: none, end: none },
    up: async () => false,
  };
}
