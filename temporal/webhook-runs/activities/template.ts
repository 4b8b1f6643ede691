import { runTemplate } from '../../../shared/workflows/pure-nodes';
import type { TemplateNode } from '../../../shared/workflows/types';
import type { NodeCall, NodeResult } from '../types';
import { finalFailure } from './output';

/** `template` nodes: text from the prompt and earlier outputs (sessions; runs before webhookRunWorkflowV3). */
export function createTemplateNodeActivities(deps: { identity: string }) {
  return {
    async runTemplateNode(call: NodeCall<TemplateNode>): Promise<NodeResult> {
      try {
        return { output: runTemplate(call.node, { prompt: call.prompt, outputs: call.outputs, metadata: call.metadata }), worker: deps.identity };
      } catch (err) {
        throw finalFailure(err);
      }
    },
  };
}

export type TemplateNodeActivities = ReturnType<typeof createTemplateNodeActivities>;
