/** Demo data for `make dev`: runs a ping through a worker so the Temporal UI shows a workflow. */
import { getConfig } from '../shared/config';
import { createTemporal } from '../temporal/connection';
import { runPing } from '../temporal/ping/client';

async function main(): Promise<void> {
  const config = getConfig();
  const temporal = createTemporal(config);
  const ping = await runPing(temporal, `dev-${new Date().toISOString()}`);
  console.log(`  demo: ping workflow ${ping.workflowId} ran on worker ${ping.worker}`);
  await temporal.close();
}

main().catch((err) => {
  console.error(`demo seed failed: ${(err as Error).message}`);
  process.exit(1);
});
