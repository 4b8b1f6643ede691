import type { NodeCall, NodeResult } from '../kind';
import { finalFailure } from '../runtime';
import { runCondition, type ConditionNode } from './kind';

/** `condition` nodes: true or false on an earlier output; edges with `when` pick the branch (sessions; runs before webhookRunWorkflowV3). */
export function createConditionNodeActivities(deps: { identity: string }) {
  return {
    async runConditionNode(call: NodeCall<ConditionNode>): Promise<NodeResult> {
      try {
        return { output: runCondition(call.node, { prompt: call.prompt, outputs: call.outputs, metadata: call.metadata }), worker: deps.identity };
      } catch (err) {
        throw finalFailure(err);
      }
    },
  };
}

export type ConditionNodeActivities = ReturnType<typeof createConditionNodeActivities>;
