import { ApplicationFailure } from '@temporalio/activity';
import { evaluateCondition } from '../../../shared/workflows/graph';
import { renderTemplate } from '../../../shared/workflows/template';
import type { ConditionNode } from '../../../shared/workflows/types';
import type { NodeCall, NodeResult } from '../types';

/** `condition` nodes: true or false on an earlier output; edges with `when` pick the branch. */
export function createConditionNodeActivities(deps: { identity: string }) {
  return {
    async runConditionNode(call: NodeCall<ConditionNode>): Promise<NodeResult> {
      const scope = { prompt: call.prompt, outputs: call.outputs, metadata: call.metadata };
      const input = renderTemplate(call.node.input, scope);
      const value = call.node.operator === 'matches' ? (call.node.value ?? '') : renderTemplate(call.node.value ?? '', scope);
      try {
        return { output: evaluateCondition(call.node.operator, input, value, call.node.ignore_case ?? true), worker: deps.identity };
      } catch (err) {
        throw ApplicationFailure.nonRetryable(`condition ${call.node.id}: ${(err as Error).message}`, 'invalid_node');
      }
    },
  };
}

export type ConditionNodeActivities = ReturnType<typeof createConditionNodeActivities>;
