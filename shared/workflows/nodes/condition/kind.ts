import { NodeError } from '../../node-output';
import { renderTemplate, type TemplateScope } from '../../template';
import { type BaseNode, defineKind, WAIT_CANCELLATION } from '../kind';
import { patternMatches, patternProblem } from './pattern';

export const CONDITION_OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'matches',
  'empty',
  'not_empty',
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export interface ConditionNode extends BaseNode {
  type: 'condition';
  /** What is tested, templated (e.g. "{{nodes.classify.output}}"). */
  input: string;
  operator: ConditionOperator;
  /** Compared text (templated); for `matches` a regular expression. Unused by empty / not_empty. */
  value?: string;
  /** Compare case-insensitively (default true). */
  ignore_case?: boolean;
}

/** The result of a condition node on its rendered input and value. */
export function evaluateCondition(
  operator: ConditionOperator,
  input: string,
  value: string,
  ignoreCase = true,
): boolean {
  const a = ignoreCase ? input.trim().toLowerCase() : input.trim();
  const b = ignoreCase ? value.trim().toLowerCase() : value.trim();
  switch (operator) {
    case 'equals':
      return a === b;
    case 'not_equals':
      return a !== b;
    case 'contains':
      return a.includes(b);
    case 'not_contains':
      return !a.includes(b);
    case 'matches':
      return patternMatches(value, input, ignoreCase);
    case 'empty':
      return a === '';
    case 'not_empty':
      return a !== '';
  }
}

export function runCondition(node: ConditionNode, scope: TemplateScope): boolean {
  const input = renderTemplate(node.input, scope);
  const value = node.operator === 'matches' ? (node.value ?? '') : renderTemplate(node.value ?? '', scope);
  try {
    return evaluateCondition(node.operator, input, value, node.ignore_case ?? true);
  } catch (err) {
    throw new NodeError('invalid_node', `condition ${node.id}: ${(err as Error).message}`);
  }
}

/** `condition`: true or false on an earlier output; the edges leaving it with `when` pick the branch. */
export const conditionKind = defineKind<ConditionNode>()({
  type: 'condition',
  fields: [
    { name: 'input', type: 'string', required: true },
    { name: 'operator', type: { oneOf: CONDITION_OPERATORS }, required: true },
    { name: 'value', type: 'string', required: false },
    { name: 'ignore_case', type: 'boolean', required: false },
  ],
  check(node) {
    const bad = node.operator === 'matches' && typeof node.value === 'string' ? patternProblem(node.value) : undefined;
    return bad ? [{ field: 'value', message: bad }] : [];
  },
  templates: (node) => [
    { path: '.input', text: node.input, credentialsAllowed: false },
    ...(node.value === undefined ? [] : [{ path: '.value', text: node.value, credentialsAllowed: false }]),
  ],
  branches: true,
  evaluate: runCondition,
  /**
   * re2js is linear but slow (about 1.5 µs a character here, so 200k characters take 300 ms):
   * a `matches` costs the characters it scans. Renders and comparisons are cheap (bounded by the
   * render budget) and cost nothing.
   */
  inlineCost(node, scope) {
    if (node.operator !== 'matches') return 0;
    try {
      return renderTemplate(node.input, scope).length;
    } catch {
      return 0; // the render fails the same way wherever it runs
    }
  },
  finalErrors: ['invalid_node'],
  queue: 'node-condition-v1',
  untrustedQueue: 'untrusted-node-condition-v1',
  activity: 'runConditionNode',
  options: {
    cancellationType: WAIT_CANCELLATION,
    startToCloseTimeout: '10 seconds',
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: ['invalid_node'] },
  },
  summary: {},
  output: 'condition true/false',
});
