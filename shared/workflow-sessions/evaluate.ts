/**
 * The session's pure evaluator: template and condition nodes are computed here, in workflow
 * code, from the runs branch's pure template and condition rules. Tool and model nodes need I/O
 * and go through activities. No I/O, no clock.
 */
import { evaluateCondition } from '../workflows/graph';
import { renderTemplate, type TemplateScope } from '../workflows/template';
import type { WorkflowNode } from '../workflows/types';

export type PureOutcome = { output: string } | { output: boolean; condition: boolean };

export function isPureNode(node: WorkflowNode): boolean {
  return node.type === 'template' || node.type === 'condition';
}

export function evaluatePureNode(node: WorkflowNode, scope: TemplateScope): PureOutcome {
  if (node.type === 'template') return { output: renderTemplate(node.template, scope) };
  if (node.type === 'condition') {
    const result = evaluateCondition(node.operator, renderTemplate(node.input, scope), renderTemplate(node.value ?? '', scope), node.ignore_case ?? true);
    return { output: result, condition: result };
  }
  throw new TypeError(`${node.type} nodes are not evaluated in workflow code`);
}

export function asText(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}
