import type { NodeCall, NodeResult } from '../call';
import { defineNodeWorker, finalFailure } from '../runtime';
import { conditionKind, type ConditionNode, runCondition } from './kind';

/** `condition` nodes: true or false on an earlier output; edges with `when` pick the branch (sessions; runs of the legacy types that dispatch every node). */
export function createConditionNodeActivities(deps: { identity: string }) {
  return {
    async runConditionNode(call: NodeCall<ConditionNode>): Promise<NodeResult> {
      try {
        return {
          output: runCondition(call.node, { prompt: call.prompt, outputs: call.outputs, metadata: call.metadata }),
          worker: deps.identity,
        };
      } catch (err) {
        throw finalFailure(err);
      }
    },
  };
}

export const nodeWorker = defineNodeWorker(conditionKind, {
  activities: (deps) => createConditionNodeActivities({ identity: deps.identity }),
});

export type ConditionNodeActivities = ReturnType<typeof createConditionNodeActivities>;
