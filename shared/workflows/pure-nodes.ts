import { runCondition } from './nodes/condition/kind';
import { kindOf, type PureNode } from './nodes/index';
import { runTemplate } from './nodes/template/kind';
import type { TemplateScope } from './template';
import type { WorkflowNode } from './types';

export { capOutput, MAX_NODE_OUTPUT_BYTES, NodeError, utf8Length } from './node-output';
export type { PureNode };
export { runCondition, runTemplate };

/**
 * The node kinds that are pure and bounded (their registry entry has `evaluate`): a template
 * renders within a running budget, a condition compares or matches with a linear-time engine
 * (re2js). The run workflow evaluates them inside its own task; the node activities (sessions,
 * runs started as the legacy types without in-task pure nodes) call the same functions, so both give the same output
 * or the same error. `PureNode` is derived from the registry (./nodes/index.ts).
 */

export function isPureNode(node: WorkflowNode): node is PureNode {
  return kindOf(node.type).evaluate !== undefined;
}

/** How much of a run's inline budget evaluating `node` here would spend, in characters a regex scans. */
export function inlineCost(node: PureNode, scope: TemplateScope): number {
  return kindOf(node.type).inlineCost?.(node, scope) ?? 0;
}

/**
 * Regex input one run may scan inside its workflow task (~30 ms). Past it, `matches` nodes run as
 * activities on the condition queue, so no graph can hold a workflow thread that other runs share.
 */
export const INLINE_MATCH_BUDGET = 20_000;

export function runPureNode(node: PureNode, scope: TemplateScope): unknown {
  return kindOf(node.type).evaluate!(node, scope);
}
