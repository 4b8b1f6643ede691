/**
 * Where the workflow-task queue time goes: the bare one-activity workflow, one at a time, on the
 * runs bench's floor worker (bench/floor-worker.ts), with the starter and the worker arranged in
 * several ways on one Temporal dev server. Per arrangement: p50 start → result, and the median of
 * the first workflow task's queue time (scheduled → started) from the history.
 *
 *   node_modules/.bin/tsx bench/dispatch-wait.ts
 *
 * Knobs (env): DW_RUNS (40), DW_IDLE_MS (90: the pause between runs, as the runs bench leaves
 * between a run and its floor workflow), DW_TRIES (comma list of the names below), DW_BACK_TO_BACK
 * (1: every try measures a run started the moment the previous one ended), DW_EXTRA_DC (dynamic
 * config `key=value` pairs, comma list, added to the dev server's flags).
 */
import './silent-logs';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DEV_SERVER_SPEED_FLAGS, startTemporalDevWith } from '../scripts/services/temporal';
import { envNumber, summarize } from './common';

const ROOT = path.resolve(__dirname, '..');

interface Try {
  name: string;
  what: string;
  /** Extra environment of the floor worker process (bench/floor-worker.ts reads it). */
  workerEnv?: NodeJS.ProcessEnv;
  idleMs?: number;
}

const TRIES: Try[] = [
  { name: 'idle', what: 'worker process of its own, a pause between runs' },
  { name: 'back-to-back', what: 'worker process of its own, no pause', idleMs: 0 },
  {
    name: 'worker-tick',
    what: 'as idle, the worker process also runs a 5 ms timer (its event loop never sleeps long)',
    workerEnv: { FLOOR_WORKER_TICK_MS: '5' },
  },
  {
    name: 'worker-pollers',
    what: 'as idle, the worker with 4 workflow-task pollers of each kind (max 16)',
    workerEnv: { FLOOR_WORKER_OPTS: JSON.stringify({ maxConcurrentWorkflowTaskPolls: 16 }) },
  },
  {
    name: 'polls-2',
    what: 'as idle, the worker with 2 workflow-task polls (1 sticky, 1 normal)',
    workerEnv: { FLOOR_WORKER_OPTS: JSON.stringify({ maxConcurrentWorkflowTaskPolls: 2 }) },
  },
  {
    name: 'ratio-1',
    what: 'as idle, as many normal-queue polls as sticky ones (nonStickyToStickyPollRatio 1)',
    workerEnv: { FLOOR_WORKER_OPTS: JSON.stringify({ nonStickyToStickyPollRatio: 1 }) },
  },
  {
    name: 'no-sticky',
    what: 'as idle, the worker without a sticky queue (every task from the normal queue)',
    workerEnv: { FLOOR_WORKER_OPTS: JSON.stringify({ maxCachedWorkflows: 0 }) },
  },
];

/** DW_BACK_TO_BACK=1: every try measures a run started the moment its previous one ended. */
const backToBack = (t: Try) => t.idleMs === 0 || process.env.DW_BACK_TO_BACK === '1';

async function main(): Promise<void> {
  const runs = envNumber('DW_RUNS', 40);
  const idleMs = envNumber('DW_IDLE_MS', 90);
  const wanted = process.env.DW_TRIES?.split(',');
  const extra = (process.env.DW_EXTRA_DC ?? '').split(',').filter(Boolean);
  const server = await startTemporalDevWith([
    ...DEV_SERVER_SPEED_FLAGS,
    ...extra.flatMap((pair) => ['--dynamic-config-value', pair]),
  ]);
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: 'default' });
  const rows: string[] = [];
  // In the order asked (a name may come twice: order effects show).
  const tries = wanted ? wanted.map((n) => TRIES.find((x) => x.name === n)!).filter(Boolean) : TRIES;
  const live: Array<{
    t: Try;
    taskQueue: string;
    worker: ChildProcess;
    latencies: number[];
    first: number[];
    all: number[];
  }> = [];
  try {
    for (const t of tries) {
      const taskQueue = `dw-${randomUUID()}`;
      live.push({
        t,
        taskQueue,
        worker: await startWorker(server.address, taskQueue, t.workerEnv ?? {}),
        latencies: [],
        first: [],
        all: [],
      });
    }
    // Interleaved one run per try in turn, so the shared machine's drift hits every try alike.
    for (let i = 0; i < runs + 5; i++) {
      for (const l of live) {
        const workflowId = randomUUID();
        const t0 = performance.now();
        await client.workflow.execute('oneActivityWorkflow', { taskQueue: l.taskQueue, workflowId, args: [] });
        const took = performance.now() - t0;
        // Back to back: this try's next run right after this one, before the next try's turn.
        if (backToBack(l.t))
          await client.workflow.execute('oneActivityWorkflow', {
            taskQueue: l.taskQueue,
            workflowId: `${workflowId}-b`,
            args: [],
          });
        if (i >= 5) {
          const id = backToBack(l.t) ? `${workflowId}-b` : workflowId;
          if (backToBack(l.t)) l.latencies.push(await closedMs(client, id));
          else l.latencies.push(took);
          const q = await queueTimes(client, id);
          l.first.push(q[0]);
          l.all.push(q.reduce((a, b) => a + b, 0));
        }
        if (!backToBack(l.t) && idleMs) await new Promise((r) => setTimeout(r, idleMs));
      }
    }
    for (const l of live) {
      const row =
        `${l.t.name.padEnd(15)} p50 ${summarize(l.latencies).p50Ms.toFixed(1).padStart(6)} ms  ` +
        `first wft queue p50 ${summarize(l.first).p50Ms.toFixed(1).padStart(5)} ms  ` +
        `all wft queue p50 ${summarize(l.all).p50Ms.toFixed(1).padStart(5)} ms   (${l.t.what})`;
      rows.push(row);
    }
  } finally {
    for (const l of live) {
      l.worker.kill('SIGTERM');
      await new Promise((r) => l.worker.once('exit', r));
    }
    await connection.close();
    await server.stop();
  }
  console.log(rows.join('\n'));
}

/** Start → close of an execution, from its history (a back-to-back run's start follows the previous result at once). */
async function closedMs(client: Client, workflowId: string): Promise<number> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
    Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
  return ms(events[events.length - 1]?.eventTime) - ms(events[0]?.eventTime);
}

/** Each workflow task's scheduled → started, in ms, in history order. */
async function queueTimes(client: Client, workflowId: string): Promise<number[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
    Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
  const at = new Map<number, number>();
  const out: number[] = [];
  for (const e of history.events ?? []) {
    at.set(Number(e.eventId), ms(e.eventTime));
    const started = e.workflowTaskStartedEventAttributes;
    if (started) out.push(ms(e.eventTime) - at.get(Number(started.scheduledEventId))!);
  }
  return out;
}

async function startWorker(address: string, taskQueue: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['bench/floor-worker.ts', address, taskQueue], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`floor worker exited with ${code}`)));
  });
  return child;
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
