/**
 * `make bench`, last step: merges the scripts' result files (bench/result-file.ts) into
 * bench/results/latest.json (the issue's keys, each a number, and the `growth` object) and
 * bench/results/latest.md (figure, value, baseline, ratio, target), and puts that table in the
 * README's performance section. A figure missing from a result file fails the run: nothing is
 * written then, so no report carries a number that was not measured.
 *
 *   node_modules/.bin/tsx bench/report.ts   (reads BENCH_RESULT_DIR, as the scripts wrote it)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../scripts/services/paths';
import { type Figures, readResult, resultDir } from './result-file';

/** The issue's keys, in its order, and the script that measures each. */
export const KEYS = {
  runs_per_s: 'runs',
  bare_workflow_per_s: 'runs',
  runs_vs_bare_workflow: 'runs',
  run_p50_ms: 'runs',
  bare_workflow_p50_ms: 'runs',
  run_p50_vs_bare_workflow: 'runs',
  trigger_vs_baseline: 'runs',
  signed_balance_vs_baseline: 'run',
  signed_invoke_vs_baseline: 'tools',
  mcp_task_over_rest_p50: 'mcp-tasks',
  mcp_credits_over_signed_invoke_p50: 'mcp-tasks',
  schedules_claim_advance_vs_baseline: 'schedules',
  jobs_reserve_vs_baseline: 'jobs',
  purchase_overhead_p50_ms: 'purchase',
  callback_after_completion_p50_ms: 'runs',
  polling_store_commands_per_run_s: 'runs',
  waiting_store_commands_per_run: 'runs',
  api_peak_rss_mb: 'runs',
  worker_peak_rss_mb: 'runs',
  api_tsx_start_ms: 'startup',
  api_compiled_start_ms: 'startup',
  api_tsx_rss_mb: 'startup',
  api_compiled_rss_mb: 'startup',
  worker_tsx_start_ms: 'startup',
  worker_compiled_start_ms: 'startup',
  worker_tsx_rss_mb: 'startup',
  worker_compiled_rss_mb: 'startup',
  amplification_worker_rss_growth_mb: 'session-amplification',
} as const;
type Key = keyof typeof KEYS;
const GROWTH_COLLECTIONS = [
  'runs',
  'ledger_entries',
  'tool_invocations',
  'schedule_claims',
  'job_reservations',
] as const;
const GROWTH_SIZES = ['1k', '10k', '100k'] as const;
/** A store that scans falls 100× from 1k to 100k documents; flat or logarithmic keeps well above this. */
const GROWTH_FLAT = 0.5;

/** One line of the readable table: the figure, what it is measured against, and the issues' target. */
interface Row {
  figure: string;
  value: string;
  baseline: string;
  ratio: string;
  target: string;
  met?: boolean;
}

export interface Latest extends Record<Key, number> {
  growth: Record<
    (typeof GROWTH_COLLECTIONS)[number],
    { read: Record<(typeof GROWTH_SIZES)[number], number>; write: Record<(typeof GROWTH_SIZES)[number], number> }
  >;
}

const need = (figures: Figures, key: string, script: string): number => {
  const v = figures[key];
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new Error(`bench report: ${key} was not measured (${script}.result.json)`);
  return v;
};

export function collect(): { latest: Latest; extra: Figures } {
  const scripts = [...new Set([...Object.values(KEYS), 'growth'])];
  const figures: Record<string, Figures> = Object.fromEntries(scripts.map((s) => [s, readResult(s).figures]));
  const extra: Figures = Object.assign({}, ...scripts.filter((s) => s !== 'growth').map((s) => figures[s]));
  const top = Object.fromEntries(Object.entries(KEYS).map(([k, s]) => [k, need(figures[s], k, s)])) as Record<
    Key,
    number
  >;
  const growth = Object.fromEntries(
    GROWTH_COLLECTIONS.map((c) => [
      c,
      Object.fromEntries(
        (['read', 'write'] as const).map((op) => [
          op,
          Object.fromEntries(GROWTH_SIZES.map((n) => [n, need(figures.growth, `${c}.${op}.${n}`, 'growth')])),
        ]),
      ),
    ]),
  ) as Latest['growth'];
  return { latest: { ...top, growth }, extra };
}

const num = (v: number | undefined, unit = '') =>
  v === undefined || !Number.isFinite(v)
    ? '–'
    : `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)}${unit}`;
const atLeast = (v: number, t: number) => ({ target: `≥ ${t}`, met: v >= t });
const atMost = (v: number, t: number) => ({ target: `≤ ${t}`, met: v <= t });

function rows(l: Latest, x: Figures): Row[] {
  return [
    {
      figure: 'runs/s, 16 agents trigger and GET with wait through the API (one worker)',
      value: num(l.runs_per_s, '/s'),
      baseline: `floor: bare one-activity workflow, minimal worker of its own ${num(l.bare_workflow_per_s, '/s')}`,
      ratio: num(l.runs_vs_bare_workflow),
      ...atLeast(l.runs_vs_bare_workflow, 0.6),
    },
    {
      figure: 'one run, trigger → the agent holds the result, p50',
      value: num(l.run_p50_ms, ' ms'),
      baseline: `floor one at a time ${num(l.bare_workflow_p50_ms, ' ms')}`,
      ratio: num(l.run_p50_vs_bare_workflow),
      target: '≤ 1.0 and ≤ 40 ms',
      met: l.run_p50_vs_bare_workflow <= 1.0 && l.run_p50_ms <= 40,
    },
    {
      figure:
        'agents polling every 100 ms: store commands per run-second of waiting (reading the run, beyond the trigger)',
      value: num(l.polling_store_commands_per_run_s),
      baseline: `agents that wait: ${num(l.waiting_store_commands_per_run)} per run`,
      ratio: '',
      ...atMost(l.polling_store_commands_per_run_s, 1),
    },
    {
      figure: 'trigger endpoint req/s',
      value: num(x.trigger_rps, '/s'),
      baseline: `insert + workflow start ${num(x.trigger_baseline_rps, '/s')}`,
      ratio: num(l.trigger_vs_baseline),
      target: '≥ 0.5',
      met: l.trigger_vs_baseline >= 0.5,
    },
    {
      figure: 'signed credit balance req/s',
      value: num(x.signed_balance_rps, '/s'),
      baseline: `one-insert endpoint ${num(x.signed_balance_baseline_rps, '/s')}`,
      ratio: num(l.signed_balance_vs_baseline),
      ...atLeast(l.signed_balance_vs_baseline, 0.5),
    },
    {
      figure: 'signed credit tool invoke req/s',
      value: num(x.signed_invoke_rps, '/s'),
      baseline: `insert + vendor call ${num(x.signed_invoke_baseline_rps, '/s')}`,
      ratio: num(l.signed_invoke_vs_baseline),
      ...atLeast(l.signed_invoke_vs_baseline, 0.5),
    },
    {
      figure: 'MCP task: call → tasks/get completed, p50',
      value: num(x.mcp_task_p50_ms, ' ms'),
      baseline: `REST trigger + long-poll ${num(x.rest_p50_ms, ' ms')}`,
      ratio: num(l.mcp_task_over_rest_p50),
      ...atMost(l.mcp_task_over_rest_p50, 1.1),
    },
    {
      figure: 'MCP credits tools/call, p50',
      value: num(x.mcp_credits_p50_ms, ' ms'),
      baseline: `signed REST invoke ${num(x.signed_invoke_p50_ms, ' ms')}`,
      ratio: num(l.mcp_credits_over_signed_invoke_p50),
      ...atMost(l.mcp_credits_over_signed_invoke_p50, 1.2),
    },
    {
      figure: 'schedule claim + advance round trips/s',
      value: num(x.schedules_claim_advance_per_s, '/s'),
      baseline: `two one-insert requests ${num(x.schedules_claim_advance_baseline_per_s, '/s')}`,
      ratio: num(l.schedules_claim_advance_vs_baseline),
      ...atLeast(l.schedules_claim_advance_vs_baseline, 0.5),
    },
    {
      figure: 'job reservation (store work) ops/s',
      value: num(x.jobs_reserve_rps, '/s'),
      baseline: `one insert-once ${num(x.jobs_reserve_baseline_rps, '/s')}`,
      ratio: num(l.jobs_reserve_vs_baseline),
      ...atLeast(l.jobs_reserve_vs_baseline, 0.5),
    },
    {
      figure: 'purchase: our overhead, p50 (full − signing − chain)',
      value: num(l.purchase_overhead_p50_ms, ' ms'),
      baseline: `one ping workflow ${num(x.purchase_temporal_floor_p50_ms, ' ms')} (full handshake ${num(x.purchase_full_p50_ms, ' ms')})`,
      ratio: num(l.purchase_overhead_p50_ms / x.purchase_temporal_floor_p50_ms),
      target: '< 50 ms',
      met: l.purchase_overhead_p50_ms < 50,
    },
    {
      figure: 'callback received after completed_at, p50',
      value: num(l.callback_after_completion_p50_ms, ' ms'),
      baseline: `floor one at a time ${num(l.bare_workflow_p50_ms, ' ms')}`,
      ratio: num(l.callback_after_completion_p50_ms / l.bare_workflow_p50_ms),
      target: '',
    },
    {
      figure: 'API process peak RSS (runs bench; shares its process with the load clients)',
      value: num(l.api_peak_rss_mb, ' MB'),
      baseline: '',
      ratio: '',
      target: '',
    },
    {
      figure: 'worker process peak RSS (runs bench; compiled, every queue, as the image runs it)',
      value: num(l.worker_peak_rss_mb, ' MB'),
      baseline: '',
      ratio: '',
      target: '< 400 MB',
      met: l.worker_peak_rss_mb < 400,
    },
    {
      figure: 'API start to /health, compiled (node dist/)',
      value: num(l.api_compiled_start_ms, ' ms'),
      baseline: `tsx ${num(l.api_tsx_start_ms, ' ms')} (cold cache ${num(x.api_tsx_cold_start_ms, ' ms')})`,
      ratio: num(l.api_compiled_start_ms / l.api_tsx_start_ms),
      target: '',
    },
    {
      figure: 'API resident memory after start, compiled',
      value: num(l.api_compiled_rss_mb, ' MB'),
      baseline: `tsx ${num(l.api_tsx_rss_mb, ' MB')}`,
      ratio: num(l.api_compiled_rss_mb / l.api_tsx_rss_mb),
      target: '',
    },
    {
      figure: 'worker (--queues all) start to polling, compiled',
      value: num(l.worker_compiled_start_ms, ' ms'),
      baseline: `tsx ${num(l.worker_tsx_start_ms, ' ms')} (cold cache ${num(x.worker_tsx_cold_start_ms, ' ms')})`,
      ratio: num(l.worker_compiled_start_ms / l.worker_tsx_start_ms),
      target: '',
    },
    {
      figure: 'worker (--queues all) resident memory after start, compiled',
      value: num(l.worker_compiled_rss_mb, ' MB'),
      baseline: `tsx ${num(l.worker_tsx_rss_mb, ' MB')}`,
      ratio: num(l.worker_compiled_rss_mb / l.worker_tsx_rss_mb),
      target: '< 400 MB',
      met: l.worker_compiled_rss_mb < 400,
    },
    {
      figure:
        'worker RSS growth during a template amplification session that must fail (issue 37; the larger of the sessions and untrusted template workers)',
      value: num(l.amplification_worker_rss_growth_mb, ' MB'),
      baseline: `sessions worker ${num(x.amplification_sessions_worker_rss_growth_mb, ' MB')}, template worker ${num(x.amplification_template_worker_rss_growth_mb, ' MB')}`,
      ratio: '',
      ...atMost(l.amplification_worker_rss_growth_mb, 50),
    },
  ];
}

/** Minutes since `make bench` started (its result folder is named for the start time), if known. */
function runMinutes(): number | undefined {
  const m = /run-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(resultDir());
  if (!m) return undefined;
  const start = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
  return (Date.now() - start) / 60_000;
}

function markdown(l: Latest, x: Figures, when: string): { doc: string; table: string; machine: string } {
  const main = rows(l, x).map(
    (r) =>
      `| ${r.figure} | ${r.value} | ${r.baseline} | ${r.ratio} | ${r.target}${r.met === undefined || r.target === '' ? '' : r.met ? ' ✓' : ' ✗'} |`,
  );
  const growth = GROWTH_COLLECTIONS.flatMap((c) =>
    (['read', 'write'] as const).map((op) => {
      const v = GROWTH_SIZES.map((n) => l.growth[c][op][n]);
      const ratio = v[2] / v[0];
      return `| ${c} | ${op} | ${v.map((n) => num(n)).join(' | ')} | ${num(ratio)} ${ratio >= GROWTH_FLAT ? '✓' : '✗'} |`;
    }),
  );
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? '?'}), ${Math.round(os.totalmem() / 2 ** 30)} GB, Node ${process.version}, ${os.type()} ${os.release()}; FerretDB 1.24 on PostgreSQL and the Temporal dev server on the same machine; load average at the end ${os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(' ')}`;
  const table = [
    '| figure | value | baseline (same run) | ratio | target |',
    '|---|---|---|---|---|',
    ...main,
    '',
    `Growth: point reads and writes, ops/s at a fixed concurrency, on 1k, 10k and 100k existing documents (target: 100k/1k ≥ ${GROWTH_FLAT}; a scan would give 0.01).`,
    '',
    `| collection | op | ${GROWTH_SIZES.join(' | ')} | 100k/1k |`,
    '|---|---|---|---|---|---|',
    ...growth,
  ].join('\n');
  const took = runMinutes();
  const doc = [
    '# Benchmark results (`make bench`)',
    '',
    `Run: ${when}${took === undefined ? '' : `, the whole suite took ${took.toFixed(1)} min`}. Machine: ${machine}.`,
    '',
    'Reproduce: `make bench` (quicker, rougher: `make bench BENCH_QUICK=1`). Every ratio is against a baseline measured in the same run; see bench/README.md.',
    '',
    table,
    '',
  ].join('\n');
  return { doc, table, machine };
}

/** Replaces the README's generated block (between the bench markers) with the latest table. */
function updateReadme(table: string, machine: string, when: string): void {
  const file = path.join(ROOT, 'README.md');
  const text = fs.readFileSync(file, 'utf8');
  const start = '<!-- bench:latest:start -->';
  const end = '<!-- bench:latest:end -->';
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`README.md: no ${start} … ${end} block for the latest figures`);
  const block = [start, `Latest run (${when}), machine: ${machine}.`, '', table, end].join('\n');
  fs.writeFileSync(file, text.slice(0, i) + block + text.slice(j + end.length));
}

function main(): void {
  const { latest, extra } = collect();
  const when = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const { doc, table, machine } = markdown(latest, extra, when);
  const out = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'latest.json'), `${JSON.stringify(latest, null, 2)}\n`);
  fs.writeFileSync(path.join(out, 'latest.md'), doc);
  if (process.env.BENCH_README !== '0') updateReadme(table, machine, when);
  console.log(
    `\n${doc}\nfrom ${path.relative(ROOT, resultDir())}; written: bench/results/latest.json, bench/results/latest.md${process.env.BENCH_README !== '0' ? ', README.md (performance)' : ''}`,
  );
}

if (require.main === module) main();
