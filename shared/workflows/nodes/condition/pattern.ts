import { RE2JS } from 're2js';

/**
 * Regular expressions of `condition` nodes (`operator: matches`). Graphs are authored by wallets,
 * so patterns run on RE2 (re2js): matching is linear in the input, whatever the pattern, and
 * backtracking constructs (backreferences, lookaround) are refused at validation.
 */

export const MAX_PATTERN_LENGTH = 512;

/** Why a pattern cannot be used, or undefined when it can. */
export function patternProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (err) {
    return `is not a valid RE2 regular expression (${(err as Error).message})`;
  }
}

/** Whether the pattern matches somewhere in the input; throws on a pattern `patternProblem` refuses. */
export function patternMatches(pattern: string, input: string, ignoreCase: boolean): boolean {
  const problem = patternProblem(pattern);
  if (problem) throw new Error(`pattern ${problem}`);
  return RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0)
    .matcher(input)
    .find();
}
