import { bundleWorkflowCode, Runtime, type WorkflowBundle } from '@temporalio/worker';

/** The SDK's logs, errors only: a benchmark's output is its figures. */
const errorsOnly = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (m: string) => console.error(m),
};

/**
 * The SDK runtime with errors-only logs, and the bundle of the floor's bare workflows
 * (bench/temporal-floor-workflows.ts), for the floor's workers (in process or of their own).
 */
export async function floorRuntime(): Promise<WorkflowBundle> {
  Runtime.install({ logger: errorsOnly });
  return bundleWorkflowCode({ workflowsPath: require.resolve('./temporal-floor-workflows'), logger: errorsOnly });
}
