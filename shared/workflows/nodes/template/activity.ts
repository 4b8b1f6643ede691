import type { NodeCall, NodeResult } from '../call';
import { defineNodeWorker, finalFailure } from '../runtime';
import { runTemplate, templateKind, type TemplateNode } from './kind';

/** `template` nodes: text from the prompt and earlier outputs (sessions; runs of the legacy types that dispatch every node). */
export function createTemplateNodeActivities(deps: { identity: string }) {
  return {
    async runTemplateNode(call: NodeCall<TemplateNode>): Promise<NodeResult> {
      try {
        return {
          output: runTemplate(call.node, { prompt: call.prompt, outputs: call.outputs, metadata: call.metadata }),
          worker: deps.identity,
        };
      } catch (err) {
        throw finalFailure(err);
      }
    },
  };
}

export const nodeWorker = defineNodeWorker(templateKind, {
  activities: (deps) => createTemplateNodeActivities({ identity: deps.identity }),
});

export type TemplateNodeActivities = ReturnType<typeof createTemplateNodeActivities>;
