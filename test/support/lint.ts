import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

// ESLint loads its config with a dynamic import, which jest's module sandbox refuses, so the
// linting runs in a plain node child; one child lints every case.
const LINT = `
import { ESLint } from 'eslint';
const cases = JSON.parse(process.argv[1]);
const eslint = new ESLint({ cwd: process.cwd() });
const out = [];
for (const c of cases) {
  const [result] = await eslint.lintText(c.code, { filePath: c.filePath });
  // Import order is the formatter's business, not the layout's: left out of what these cases compare.
  out.push(result.messages.map((m) => m.ruleId).filter((r) => !r?.startsWith('simple-import-sort/')));
}
process.stdout.write(JSON.stringify(out));
`;

export interface LintCase {
  /** Where the snippet is linted as if it were, relative to the repository. */
  filePath: string;
  code: string;
}

/** The rule ids the project's own config (eslint.config.mjs) reports on each snippet, in order. */
export function lintRuleIds(cases: LintCase[]): (string | null)[][] {
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', LINT, JSON.stringify(cases)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(stdout) as (string | null)[][];
}
