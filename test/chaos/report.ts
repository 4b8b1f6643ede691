/**
 * The latest full soak's figures in docs/reliability.md, between the markers below: `make chaos`
 * rewrites that part (as bench/report.ts rewrites the bench table), the text around it stays.
 * Every run also adds its line to the table of runs (seed, length, verdict), so a run that found a
 * violation stays on record after a later clean one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../scripts/services/paths';
import { describeViolation } from './checker/index';
import { OP_KINDS } from './history';
import type { SoakResult } from './soak';

const DOC = path.join(ROOT, 'docs/reliability.md');
export const BEGIN = '<!-- chaos:begin (written by make chaos: test/chaos/run.ts) -->';
export const END = '<!-- chaos:end -->';
export const RUNS_END = '<!-- chaos:runs:end (make chaos adds a line above) -->';

/** The soak on the Temporal cluster has its section and its table of runs beside the dev server's. */
export const CLUSTER_BEGIN = '<!-- chaos-cluster:begin (written by CHAOS_TEMPORAL=cluster make chaos) -->';
export const CLUSTER_END = '<!-- chaos-cluster:end -->';
export const CLUSTER_RUNS_END = '<!-- chaos-cluster:runs:end (CHAOS_TEMPORAL=cluster make chaos adds a line above) -->';

function markers(r: SoakResult) {
  return r.temporal === 'cluster'
    ? { begin: CLUSTER_BEGIN, end: CLUSTER_END, runsEnd: CLUSTER_RUNS_END, env: 'CHAOS_TEMPORAL=cluster ' }
    : { begin: BEGIN, end: END, runsEnd: RUNS_END, env: '' };
}

/** The line of one run in the table of runs. */
export function runLine(r: SoakResult): string {
  return (
    `| ${r.startedAt.slice(0, 16).replace('T', ' ')} | ${r.seed} | ${r.seconds} | ${r.agents} | ${r.totalOps} | ` +
    `${r.totalFaults} | ${r.violations.length} |`
  );
}

export function reportSection(r: SoakResult): string {
  const ops = OP_KINDS.map((k) => {
    const v = r.opsByKind[k] ?? { total: 0, acknowledged: 0, refused: 0, unanswered: 0 };
    return `| ${k} | ${v.total} | ${v.acknowledged} | ${v.refused} | ${v.unanswered} |`;
  });
  const m = markers(r);
  const faults = r.faultKinds.map((k) => `| ${k} | ${r.faultsByKind[k] ?? 0} |`);
  const checked = Object.entries(r.checked).map(([k, v]) => `| ${k} | ${v} |`);
  return [
    m.begin,
    '',
    `**${r.totalOps} operations, ${r.totalFaults} faults, ${r.violations.length} violations** — started ${r.startedAt}, ` +
      `${r.seconds} s of load with ${r.agents} agents, ${r.wallSeconds} s from stack start to verdict, seed ${r.seed}.`,
    '',
    `Reproduce: \`${m.env}CHAOS_SECONDS=${r.seconds} CHAOS_SEED=${r.seed} make chaos\``,
    '',
    '| operation | total | acknowledged (2xx) | refused (answered ≥ 300) | no answer |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...ops,
    `| **all** | **${r.totalOps}** | | | |`,
    '',
    '| fault | injected |',
    '| --- | ---: |',
    ...faults,
    `| **all** | **${r.totalFaults}** |`,
    '',
    '| what the checker read | count |',
    '| --- | ---: |',
    ...checked,
    '',
    r.violations.length === 0
      ? 'Violations: none.'
      : ['Violations:', '', '```', ...r.violations.map(describeViolation), '```'].join('\n'),
    '',
    m.end,
  ].join('\n');
}

/** Puts the section in docs/reliability.md in place of the previous one. */
export function writeReport(r: SoakResult): void {
  const { begin, end: endMark, runsEnd } = markers(r);
  const text = fs.readFileSync(DOC, 'utf8');
  const start = text.indexOf(begin);
  const end = text.indexOf(endMark);
  if (start < 0 || end < start) throw new Error(`docs/reliability.md has no ${begin} … ${endMark} section`);
  const replaced = text.slice(0, start) + reportSection(r) + text.slice(end + endMark.length);
  const runs = replaced.indexOf(runsEnd);
  if (runs < 0) throw new Error(`docs/reliability.md has no ${runsEnd} line`);
  fs.writeFileSync(DOC, replaced.slice(0, runs) + runLine(r) + '\n' + replaced.slice(runs));
}
