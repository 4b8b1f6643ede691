import type { Engines } from '../shared/composition/engines';
import { temporalUp, type TemporalHandle } from './connection';
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
