import { evaluateCondition } from './graph';
import { renderTemplate, type TemplateScope } from './template';
import type { ConditionNode, TemplateNode, WorkflowNode } from './types';

/**
 * The node kinds that are pure and bounded: a template renders within a running budget, a
 * condition compares or matches with a linear-time engine (re2js). The run workflow evaluates
 * them inside its own task; the node activities (sessions, runs started before
 * webhookRunWorkflowV3) call the same functions, so both give the same output or the same error.
 */
export type PureNode = TemplateNode | ConditionNode;

export function isPureNode(node: WorkflowNode): node is PureNode {
  return node.type === 'template' || node.type === 'condition';
}

/** Node outputs travel through workflow history: each is capped. */
export const MAX_NODE_OUTPUT_BYTES = 256 * 1024;

/** A final node error; `code` is the run's error_code (and the activity's failure type). */
export class NodeError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** UTF-8 length of a string as Buffer.byteLength counts it (a lone surrogate is 3 bytes), without Buffer. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The output itself, or NodeError node_output_too_large past MAX_NODE_OUTPUT_BYTES. */
export function capOutput<T>(output: T): T {
  const size = utf8Length(typeof output === 'string' ? output : (JSON.stringify(output ?? null) ?? 'null'));
  if (size > MAX_NODE_OUTPUT_BYTES) throw new NodeError('node_output_too_large', `node output is ${size} bytes; the limit is ${MAX_NODE_OUTPUT_BYTES}`);
  return output;
}

export function runTemplate(node: TemplateNode, scope: TemplateScope): string {
  return capOutput(renderTemplate(node.template, scope));
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

/**
 * How much of a run's inline budget evaluating `node` here would spend, in characters a regex
 * scans: re2js is linear but slow (about 1.5 µs a character here, so 200k characters take 300 ms).
 * Renders and comparisons are cheap (bounded by the render budget) and cost nothing.
 */
export function inlineCost(node: PureNode, scope: TemplateScope): number {
  if (node.type !== 'condition' || node.operator !== 'matches') return 0;
  try {
    return renderTemplate(node.input, scope).length;
  } catch {
    return 0; // the render fails the same way wherever it runs
  }
}

/**
 * Regex input one run may scan inside its workflow task (~30 ms). Past it, `matches` nodes run as
 * activities on the condition queue, so no graph can hold a workflow thread that other runs share.
 */
export const INLINE_MATCH_BUDGET = 20_000;

export function runPureNode(node: PureNode, scope: TemplateScope): unknown {
  return node.type === 'template' ? runTemplate(node, scope) : runCondition(node, scope);
}
