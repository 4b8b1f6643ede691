import type { Engines } from '../shared/composition/engines';
import { type TemporalHandle, temporalUp } from './connection';
import { jobEngine } from './job-verification/client';
import { runEngine } from './webhook-runs/client';
import { sessionEngine } from './workflow-session/client';
import { settlementEngine } from './x402-settlement/client';

/**
 * The services' ports onto one Temporal client. Building them touches nothing: the client
 * connects lazily, so a process whose Temporal is down (or absent) still builds its root.
 */
export function createEngines(temporal: TemporalHandle): Engines {
  return {
    runs: runEngine(temporal),
    settlements: settlementEngine(temporal),
    jobs: jobEngine(temporal),
    sessions: sessionEngine(temporal),
    up: () => temporalUp(temporal),
  };
}

/**
 * Engines whose client is made on first use: a process that may never start an execution (the
 * operator CLI) opens no Temporal connection until a command needs one.
 */
export function lazyEngines(temporal: () => TemporalHandle): Engines {
  let engines: Engines | undefined;
  const now = () => (engines ??= createEngines(temporal()));
  return {
    runs: {
      start: (run) => now().runs.start(run),
      hasExecution: (runId) => now().runs.hasExecution(runId),
      cancel: (runId) => now().runs.cancel(runId),
      replayCallback: (replay) => now().runs.replayCallback(replay),
      awaitEnd: (runId, signal, watching) => now().runs.awaitEnd(runId, signal, watching),
    },
    settlements: {
      start: (s) => now().settlements.start(s),
      await: (paymentId, waitMs) => now().settlements.await(paymentId, waitMs),
      ensureStarted: (s) => now().settlements.ensureStarted(s),
      exists: (paymentId) => now().settlements.exists(paymentId),
    },
    jobs: {
      ensureReservationSweep: () => now().jobs.ensureReservationSweep(),
      startVerification: (c) => now().jobs.startVerification(c),
    },
    sessions: {
      start: (input) => now().sessions.start(input),
      query: (sessionId) => now().sessions.query(sessionId),
      touch: (sessionId) => now().sessions.touch(sessionId),
      end: (sessionId, reason) => now().sessions.end(sessionId, reason),
    },
    up: () => now().up(),
  };
}
