import { renderTemplate } from '../../../shared/workflows/template';
import type { TemplateNode } from '../../../shared/workflows/types';
import type { NodeCall, NodeResult } from '../types';
import { capped } from './output';

/** `template` nodes: text from the prompt and earlier outputs. */
export function createTemplateNodeActivities(deps: { identity: string }) {
  return {
    async runTemplateNode(call: NodeCall<TemplateNode>): Promise<NodeResult> {
      const output = renderTemplate(call.node.template, { prompt: call.prompt, outputs: call.outputs, metadata: call.metadata });
      return { output: capped(output), worker: deps.identity };
    },
  };
}

export type TemplateNodeActivities = ReturnType<typeof createTemplateNodeActivities>;
