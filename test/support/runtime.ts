import { Runtime } from '@temporalio/worker';
import { sdkLogger } from '../../workers/logging';

let installed = false;

/** Routes the Temporal SDK's own log lines through our logger (silent in tests by default). */
export function installTestRuntime(): void {
  if (installed) return;
  installed = true;
  Runtime.install({ logger: sdkLogger });
}
