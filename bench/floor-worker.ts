/**
 * The engine's floor for the runs bench: a minimal SDK worker, in a process of its own, that runs
 * the bare one-activity workflow of bench/temporal-floor-workflows.ts on one task queue. Nothing
 * of the project is loaded (no store, no composition root), so what the bench's clients see is
 * Temporal's own dispatch on this server.
 *
 *   node_modules/.bin/tsx bench/floor-worker.ts <temporal address> <task queue>
 *
 * Prints "ready" on stdout once polling; stops on SIGTERM.
 */
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { floorRuntime } from './floor-runtime';
import * as activities from './temporal-floor-activities';

async function main(): Promise<void> {
  const [address, taskQueue] = process.argv.slice(2);
  if (!address || !taskQueue) throw new Error('usage: floor-worker.ts <temporal address> <task queue>');
  const workflowBundle = await floorRuntime();
  const connection = await NativeConnection.connect({ address });
  // bench/dispatch-wait.ts's tries: extra worker options, and a timer that keeps the event loop awake.
  const tries = JSON.parse(process.env.FLOOR_WORKER_OPTS ?? '{}') as Partial<WorkerOptions>;
  const tickMs = Number(process.env.FLOOR_WORKER_TICK_MS ?? 0);
  if (tickMs > 0) setInterval(() => undefined, tickMs);
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue,
    workflowBundle,
    activities,
    ...tries,
  });
  const running = worker.run();
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => worker.shutdown());
  process.stdout.write('ready\n');
  await running;
  await connection.close();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error((err as Error).stack ?? String(err));
    process.exit(1);
  },
);
