import { capOutput } from '../../node-output';
import { renderTemplate, type TemplateScope } from '../../template';
import { type BaseNode, defineKind, WAIT_CANCELLATION } from '../kind';

export interface TemplateNode extends BaseNode {
  type: 'template';
  /** Text with {{prompt}}, {{nodes.<id>.output}}, {{metadata.<key>}}. */
  template: string;
}

/** The template's text rendered, within the render budget and the output cap. */
export function runTemplate(node: TemplateNode, scope: TemplateScope): string {
  return capOutput(renderTemplate(node.template, scope));
}

/** `template`: text from the prompt and earlier outputs; pure, so runs evaluate it in their own task. */
export const templateKind = defineKind<TemplateNode>()({
  type: 'template',
  fields: [{ name: 'template', type: 'string', required: true }],
  templates: (node) => [{ path: '.template', text: node.template, credentialsAllowed: false }],
  evaluate: runTemplate,
  finalErrors: ['node_output_too_large'],
  queue: 'node-template-v1',
  untrustedQueue: 'untrusted-node-template-v1',
  activity: 'runTemplateNode',
  // Pure and fast: a short timeout, a couple of retries (a lost worker).
  options: {
    cancellationType: WAIT_CANCELLATION,
    startToCloseTimeout: '10 seconds',
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: ['node_output_too_large'] },
  },
  summary: {},
  output: 'template text',
});
