/**
 * The Temporal floor: bare workflow throughput and latency of each real Temporal
 * server variant, side by side in one run, with the same in-process SDK worker.
 *
 *   node_modules/.bin/tsx bench/temporal-floor.ts
 *
 * Per variant: start the server, run a worker on a fresh task queue, then for an empty, a
 * one-activity and a three-activity workflow: BENCH_CONCURRENCY (16) closed-loop clients for
 * TF_DURATION_MS (8000) after TF_WARMUP_MS (1500), then TF_LATENCY_RUNS (40) one at a time
 * (p50/p99). Ratios are against the first variant (the dev server with its defaults).
 * Output: a table on stdout and .cache/bench/temporal-floor.json.
 *
 * Knobs (env): TF_VARIANTS (comma list of names, default all), TF_WORKFLOWS (comma list),
 * TF_EXTRA_DC (extra dynamic config `key=value` pairs, comma list, for the `dev-try` variant),
 * TF_WORKER_OPTS (JSON worker options for the `dev-worker-try` variant), TF_ROUNDS (4).
 * `dev-native-client` and `dev-eager` (not in the default list) start through the worker's native
 * connection, the second with eager workflow start.
 */
import './silent-logs';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions, type WorkflowBundle } from '@temporalio/worker';
import { CACHE } from '../scripts/services/paths';
import {
  DEV_SERVER_SPEED_FLAGS,
  type RunningTemporal,
  startTemporalDev,
  startTemporalDevWith,
} from '../scripts/services/temporal';
import { startTemporalCluster } from '../scripts/services/temporal-cluster';
import { startTemporalOnPostgres, temporalServerBuilt } from '../scripts/services/temporal-server';
import { envNumber, type LatencySummary, summarize } from './common';
import { floorRuntime } from './floor-runtime';
import * as activities from './temporal-floor-activities';

const WORKFLOWS = ['emptyWorkflow', 'oneActivityWorkflow', 'threeActivitiesWorkflow'] as const;
type WorkflowName = (typeof WORKFLOWS)[number];

interface Variant {
  name: string;
  what: string;
  start(): Promise<RunningTemporal>;
  worker?: Partial<WorkerOptions>;
  /**
   * How the starter reaches the server: the TypeScript client's own gRPC (grpc-js, the default),
   * the worker's native connection (the SDK core's Rust client), or that one asking for eager
   * start (the server hands the first workflow task to the starter's process in the start reply).
   */
  client?: 'native' | 'eager';
}

interface Measured {
  variant: string;
  workflow: WorkflowName;
  perSecond: number;
  latency: LatencySummary;
  /** Medians in ms over the one-at-a-time runs, from the server's event timestamps. */
  breakdown: Breakdown;
}

/**
 * Where a one-at-a-time run spends its time, per task: `wftQueue` / `actQueue` = scheduled →
 * started (matching: the server handing the task to a waiting poll), `wftWorker` / `actWorker` =
 * started → completed (the worker, round trips included), `after` = a task's completion → the next
 * task scheduled (history, normally one transaction).
 */
type Breakdown = Record<'wftQueue' | 'wftWorker' | 'actQueue' | 'actWorker', number>;

const dynamicConfig = (pairs: string[]) => pairs.flatMap((p) => ['--dynamic-config-value', p]);
const extraDc = (process.env.TF_EXTRA_DC ?? '').split(',').filter(Boolean);

/** The flags the lead's commit 3d4385a gave start-dev, before the task queue partitions. */
const SPEED_FLAGS_BEFORE_16 = [
  '--sqlite-pragma',
  'journal_mode=wal',
  '--sqlite-pragma',
  'synchronous=normal',
  ...dynamicConfig(['system.forceSearchAttributesCacheRefreshOnRead=false']),
];

const VARIANTS: Variant[] = [
  {
    name: 'dev-default',
    what: 'start-dev with its defaults (no pragmas, no dynamic config)',
    start: () => startTemporalDevWith([]),
  },
  {
    name: 'dev-speed',
    what: 'start-dev + WAL, synchronous=normal, search-attribute cache',
    start: () => startTemporalDevWith(SPEED_FLAGS_BEFORE_16),
  },
  {
    name: 'dev-try',
    what: `dev-speed + ${extraDc.join(' ') || '(TF_EXTRA_DC unset)'}`,
    start: () => startTemporalDevWith([...SPEED_FLAGS_BEFORE_16, ...dynamicConfig(extraDc)]),
  },
  {
    name: 'dev-worker-try',
    what: `dev-speed + worker options ${process.env.TF_WORKER_OPTS ?? '(TF_WORKER_OPTS unset)'}`,
    start: () => startTemporalDevWith(SPEED_FLAGS_BEFORE_16),
    worker: JSON.parse(process.env.TF_WORKER_OPTS ?? '{}') as Partial<WorkerOptions>,
  },
  { name: 'dev-now', what: 'startTemporalDev() as make dev/test/bench start it now', start: () => startTemporalDev() },
  {
    name: 'dev-now-try',
    what: `dev-now + ${extraDc.join(' ') || '(TF_EXTRA_DC unset)'}`,
    start: () => startTemporalDevWith([...DEV_SERVER_SPEED_FLAGS, ...dynamicConfig(extraDc)]),
  },
  {
    name: 'dev-native-client',
    what: "dev-now, started through the worker's native connection instead of grpc-js",
    start: () => startTemporalDev(),
    client: 'native',
  },
  {
    name: 'dev-eager',
    what: "dev-now + system.enableEagerWorkflowStart, eager start through the worker's native connection",
    start: () =>
      startTemporalDevWith([...DEV_SERVER_SPEED_FLAGS, ...dynamicConfig(['system.enableEagerWorkflowStart=true'])]),
    client: 'eager',
  },
  {
    name: 'server-pg',
    what: 'go.temporal.io/server on PostgreSQL (tools/temporal-server), one partition per queue',
    start: () =>
      startTemporalOnPostgres({ 'matching.numTaskqueueReadPartitions': 1, 'matching.numTaskqueueWritePartitions': 1 }),
  },
  {
    name: 'cluster',
    what: 'the multi-host cluster of make cluster (2 frontends behind a TCP balancer, 2 history, 2 matching, 16 shards)',
    start: () => startTemporalCluster(),
  },
  {
    name: 'cluster-direct',
    what: 'cluster, the client and worker on the first frontend directly (no TCP balancer hop)',
    start: async () => {
      const cluster = await startTemporalCluster();
      return { ...cluster, address: cluster.frontends[0] };
    },
  },
  {
    name: 'cluster-nofsync',
    what: "cluster on a PostgreSQL that does not flush commits (what the durable profile's fsync costs)",
    start: () => startTemporalCluster({ postgresProfile: 'throwaway' }),
  },
  {
    name: 'cluster-1p',
    what: 'cluster + one partition per task queue (no forwarding between partitions on the matching hosts)',
    start: () =>
      startTemporalCluster({
        extraDynamicConfig: { 'matching.numTaskqueueReadPartitions': 1, 'matching.numTaskqueueWritePartitions': 1 },
      }),
  },
];

async function main(): Promise<void> {
  const concurrency = envNumber('BENCH_CONCURRENCY', 16);
  const durationMs = envNumber('TF_DURATION_MS', 8000);
  const warmupMs = envNumber('TF_WARMUP_MS', 1500);
  const latencyRuns = envNumber('TF_LATENCY_RUNS', 40);
  const wanted = (process.env.TF_VARIANTS ?? 'dev-default,dev-speed,dev-now,server-pg').split(',');
  const workflows = (process.env.TF_WORKFLOWS?.split(',') ?? WORKFLOWS) as WorkflowName[];
  const variants = VARIANTS.filter(
    (v) =>
      wanted.includes(v.name) && ((!v.name.startsWith('cluster') && v.name !== 'server-pg') || temporalServerBuilt()),
  );

  const workflowBundle = await floorRuntime();

  const rounds = envNumber('TF_ROUNDS', 4);
  const results: Measured[] = [];
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const live: Live[] = [];
    for (const variant of variants) {
      process.stderr.write(`${variant.name}: ${variant.what}\n`);
      live.push(await startVariant(variant, workflowBundle, stops));
    }
    // Interleaved, so drift on the shared machine hits every variant alike: throughput in
    // `rounds` slices per variant, latency one run per variant in turn.
    for (const workflow of workflows) {
      for (const v of live) await closedLoop(v.run, workflow, concurrency, warmupMs);
      const completed = new Map<Live, number>(live.map((v) => [v, 0]));
      for (let r = 0; r < rounds; r++) {
        for (const v of live)
          completed.set(v, completed.get(v)! + (await closedLoop(v.run, workflow, concurrency, durationMs / rounds)));
      }
      const latencies = new Map<Live, number[]>(live.map((v) => [v, []]));
      const ids = new Map<Live, string[]>(live.map((v) => [v, []]));
      for (let i = 0; i < latencyRuns; i++) {
        for (const v of live) {
          const workflowId = randomUUID();
          const t0 = performance.now();
          await v.run(workflow, workflowId);
          latencies.get(v)!.push(performance.now() - t0);
          ids.get(v)!.push(workflowId);
        }
      }
      for (const v of live) {
        const breakdown = await taskBreakdown(v.client, ids.get(v)!);
        const m: Measured = {
          variant: v.variant.name,
          workflow,
          perSecond: completed.get(v)! / (durationMs / 1000),
          latency: summarize(latencies.get(v)!),
          breakdown,
        };
        results.push(m);
        process.stderr.write(
          `  ${m.variant} ${workflow}: ${m.perSecond.toFixed(1)}/s, p50 ${m.latency.p50Ms.toFixed(1)} ms, p99 ${m.latency.p99Ms.toFixed(1)} ms; ` +
            `per task (median ms): wft queue ${breakdown.wftQueue.toFixed(1)} worker ${breakdown.wftWorker.toFixed(1)}, ` +
            `activity queue ${breakdown.actQueue.toFixed(1)} worker ${breakdown.actWorker.toFixed(1)}\n`,
        );
      }
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch((err) => console.error(`stop: ${(err as Error).message}`));
  }

  printTable(results, variants);
  const out = path.join(CACHE, 'bench');
  mkdirSync(out, { recursive: true });
  const file = path.join(out, 'temporal-floor.json');
  writeFileSync(
    file,
    JSON.stringify(
      {
        at: new Date().toISOString(),
        concurrency,
        durationMs,
        latencyRuns,
        variants: variants.map(({ name, what }) => ({ name, what })),
        results,
      },
      null,
      2,
    ),
  );
  process.stderr.write(`wrote ${file}\n`);
}

async function taskBreakdown(client: Client, workflowIds: string[]): Promise<Breakdown> {
  const gaps: Record<keyof Breakdown, number[]> = { wftQueue: [], wftWorker: [], actQueue: [], actWorker: [] };
  const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
    Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
  for (const id of workflowIds) {
    const history = await client.workflow.getHandle(id).fetchHistory();
    const at = new Map<number, number>();
    for (const e of history.events ?? []) {
      const t = ms(e.eventTime);
      at.set(Number(e.eventId), t);
      const from = (
        attrs: { scheduledEventId?: unknown; startedEventId?: unknown } | null | undefined,
        key: 'scheduledEventId' | 'startedEventId',
      ) => at.get(Number(attrs?.[key]));
      const gap = (k: keyof Breakdown, since: number | undefined) => since !== undefined && gaps[k].push(t - since);
      if (e.workflowTaskStartedEventAttributes)
        gap('wftQueue', from(e.workflowTaskStartedEventAttributes, 'scheduledEventId'));
      if (e.workflowTaskCompletedEventAttributes)
        gap('wftWorker', from(e.workflowTaskCompletedEventAttributes, 'startedEventId'));
      if (e.activityTaskStartedEventAttributes)
        gap('actQueue', from(e.activityTaskStartedEventAttributes, 'scheduledEventId'));
      if (e.activityTaskCompletedEventAttributes)
        gap('actWorker', from(e.activityTaskCompletedEventAttributes, 'startedEventId'));
    }
  }
  const median = (v: number[]) => (v.length ? summarize(v).p50Ms : NaN);
  return {
    wftQueue: median(gaps.wftQueue),
    wftWorker: median(gaps.wftWorker),
    actQueue: median(gaps.actQueue),
    actWorker: median(gaps.actWorker),
  };
}

interface Live {
  variant: Variant;
  client: Client;
  run(workflow: WorkflowName, workflowId?: string): Promise<void>;
}

/** The variant's server, a client and a worker on a fresh task queue; their stops go onto `stops` in start order. */
async function startVariant(
  variant: Variant,
  workflowBundle: WorkflowBundle,
  stops: Array<() => Promise<unknown>>,
): Promise<Live> {
  const server = await variant.start();
  stops.push(server.stop);
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  let client: Client;
  if (variant.client) client = new Client({ connection: nativeConnection, namespace: 'default' });
  else {
    const connection = await Connection.connect({ address: server.address });
    stops.push(() => connection.close());
    client = new Client({ connection, namespace: 'default' });
  }
  const taskQueue = `floor-${randomUUID()}`;
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace: 'default',
    taskQueue,
    workflowBundle,
    activities,
    ...variant.worker,
  });
  const running = worker.run();
  stops.push(async () => {
    worker.shutdown();
    await running;
    await nativeConnection.close();
  });
  return {
    variant,
    client,
    run: async (workflow, workflowId = randomUUID()) => {
      await client.workflow.execute(workflow, {
        taskQueue,
        workflowId,
        args: [],
        ...(variant.client === 'eager' ? { requestEagerStart: true } : {}),
      });
    },
  };
}

/** `concurrency` loops, each starting the next workflow when its last one completed; completions inside `ms`. */
async function closedLoop(run: Live['run'], workflow: WorkflowName, concurrency: number, ms: number): Promise<number> {
  const end = performance.now() + ms;
  let completed = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await run(workflow);
        if (performance.now() <= end) completed++;
      }
    }),
  );
  return completed;
}

function printTable(results: Measured[], variants: Variant[]): void {
  const base = new Map(results.filter((r) => r.variant === variants[0]?.name).map((r) => [r.workflow, r]));
  const rows = results.map((r) => {
    const b = base.get(r.workflow);
    return [
      r.variant,
      r.workflow,
      r.perSecond.toFixed(1),
      b && b.perSecond > 0 ? `${(r.perSecond / b.perSecond).toFixed(2)}x` : '-',
      r.latency.p50Ms.toFixed(1),
      r.latency.p99Ms.toFixed(1),
    ];
  });
  const head = ['variant', 'workflow', 'wf/s', 'vs first', 'p50 ms', 'p99 ms'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const row of [head, ...rows]) console.log(row.map((c, i) => c.padEnd(widths[i])).join('  '));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
