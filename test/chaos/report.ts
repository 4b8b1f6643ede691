/**
 * The latest full soak's figures in docs/reliability.md, between the markers below: `make chaos`
 * rewrites that part (as bench/report.ts rewrites the bench table), the text around it stays.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../scripts/services/paths';
import { describeViolation } from './checker/index';
import { FAULT_KINDS, OP_KINDS } from './history';
import type { SoakResult } from './soak';

const DOC = path.join(ROOT, 'docs/reliability.md');
export const BEGIN = '<!-- chaos:begin (written by make chaos: test/chaos/run.ts) -->';
export const END = '<!-- chaos:end -->';

export function reportSection(r: SoakResult): string {
  const ops = OP_KINDS.map((k) => {
    const v = r.opsByKind[k] ?? { total: 0, acknowledged: 0, refused: 0, unanswered: 0 };
    return `| ${k} | ${v.total} | ${v.acknowledged} | ${v.refused} | ${v.unanswered} |`;
  });
  const faults = FAULT_KINDS.map((k) => `| ${k} | ${r.faultsByKind[k] ?? 0} |`);
  const checked = Object.entries(r.checked).map(([k, v]) => `| ${k} | ${v} |`);
  return [
    BEGIN,
    '',
    `**${r.totalOps} operations, ${r.totalFaults} faults, ${r.violations.length} violations** — started ${r.startedAt}, ` +
      `${r.seconds} s of load with ${r.agents} agents, ${r.wallSeconds} s from stack start to verdict, seed ${r.seed}.`,
    '',
    `Reproduce: \`CHAOS_SECONDS=${r.seconds} CHAOS_SEED=${r.seed} make chaos\``,
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
    END,
  ].join('\n');
}

/** Puts the section in docs/reliability.md in place of the previous one. */
export function writeReport(r: SoakResult): void {
  const text = fs.readFileSync(DOC, 'utf8');
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/reliability.md has no ${BEGIN} … ${END} section`);
  fs.writeFileSync(DOC, text.slice(0, start) + reportSection(r) + text.slice(end + END.length));
}
