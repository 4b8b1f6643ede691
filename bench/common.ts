/** Shapes shared by the benchmark's orchestrator (run.ts), server (server.ts) and load generator (load.ts). */

export type ScenarioKind = 'insert' | 'balance';

export interface ScenarioPlan {
  name: string;
  kind: ScenarioKind;
  warmupMs: number;
  durationMs: number;
  /** Ask the server (BENCH_STAGES=1) to CPU-profile and time stages during the measured phase. */
  profile?: boolean;
}

export interface LoadPlan {
  port: number;
  concurrency: number;
  scenarios: ScenarioPlan[];
  /** Pre-signed balance requests (EnvelopeFile); only read when a scenario is 'balance'. */
  envelopesFile?: string;
  /** The A request body (same shape and size as a B body, so both parse the same amount of JSON). */
  insertBody: string;
  /** Where load.ts writes its LoadResult (raw latencies included). */
  resultFile: string;
}

export interface EnvelopeFile {
  wallets: string[];
  /** Expected balance per wallet index. */
  expected: number[];
  /** [wallet index, exact JSON body] per request, each with its own request_id. */
  items: Array<[number, string]>;
}

export interface ServerStats {
  cpu: NodeJS.CpuUsage;
  elu: { idle: number; active: number; utilization: number };
  stages?: Record<string, StageSummary>;
}

export interface StageSummary {
  count: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
}

export interface LatencySummary {
  count: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface ScenarioResult {
  name: string;
  kind: ScenarioKind;
  concurrency: number;
  /** Completions inside the measured window / window length. */
  rps: number;
  measuredMs: number;
  latency: LatencySummary;
  /** Every request of the scenario, warm-up included. */
  total: {
    requests: number;
    errors: number;
    mismatches: number;
    statuses: Record<string, number>;
    errorSamples: string[];
  };
  /** Ran out of pre-signed envelopes before the window closed: the figures are not valid. */
  exhausted: boolean;
  envelopesUsed: number;
  /** Server process CPU (user+system) as % of one core, and event-loop utilisation, over the window. */
  serverCpuPct?: number;
  serverElu?: number;
  /** Whole-machine CPU busy % (all cores, from /proc/stat) over the window. */
  machineBusyPct?: number;
  loadCpuPct?: number;
  stages?: Record<string, StageSummary>;
  profileFile?: string;
}

export interface LoadResult {
  scenarios: ScenarioResult[];
  /** Raw measured latencies in ms, per scenario name. */
  latencies: Record<string, number[]>;
}

export function summarize(values: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  const at = (q: number) => (n === 0 ? NaN : sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i];
  return {
    count: n,
    meanMs: n ? sum / n : NaN,
    p50Ms: at(0.5),
    p95Ms: at(0.95),
    p99Ms: at(0.99),
    maxMs: n ? sorted[n - 1] : NaN,
  };
}

/** A positive number from the environment (a benchmark knob), or `fallback`. */
export function envNumber(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}
