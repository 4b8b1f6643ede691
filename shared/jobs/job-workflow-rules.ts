/**
 * Pure rules of job workflows: version bumps and turning graph problems into the spec's
 * validation items. No I/O.
 */
import type { ValidationIssue } from '../platform/errors/app-error';
import type { GraphProblem } from '../workflows/index';

export const BUMPS = ['major', 'minor', 'patch'] as const;
export type Bump = (typeof BUMPS)[number];
/** Without `bump`, publish is a patch release; the first publish is always 1.0.0. */
export const DEFAULT_BUMP: Bump = 'patch';
export const FIRST_VERSION = '1.0.0';

/** The version a publish creates after `latest` (null: nothing published yet). */
export function nextVersion(latest: string | null, bump: Bump): string {
  if (!latest) return FIRST_VERSION;
  const [major, minor, patch] = latest.split('.').map(Number);
  if (bump === 'major') return `${major + 1}.0.0`;
  if (bump === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** `nodes[2].parameters.q` → ['nodes', '2', 'parameters', 'q']. */
export function pathToLoc(path: string): string[] {
  return path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((p) => p !== '');
}

/** Graph problems as validation items rooted at `root` (['body'] for a request, ['workflow'] for the stored draft at publish). */
export function problemsToIssues(problems: readonly GraphProblem[], root: string[]): ValidationIssue[] {
  return problems.map((p) => ({ loc: [...root, ...pathToLoc(p.path)], msg: p.message, type: `workflow.${p.code}` }));
}
