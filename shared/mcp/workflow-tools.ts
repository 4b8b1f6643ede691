import type { McpTool } from '../tools/index';
import type { RunnableWorkflow } from '../workflows/index';

const PREFIX = 'workflow__';

export function workflowToolName(workflowId: string): string {
  return `${PREFIX}${workflowId}`;
}

/** The workflow id a tool name stands for, or undefined when it names no workflow tool. */
export function workflowIdOf(name: string): string | undefined {
  return name.startsWith(PREFIX) && name.length > PREFIX.length ? name.slice(PREFIX.length) : undefined;
}

export function workflowTool(wf: RunnableWorkflow): McpTool {
  const title = `Workflow: ${wf.name}`;
  return {
    name: workflowToolName(wf.workflow_id),
    title,
    description: `Runs the workflow "${wf.name}" on this agent group's budget (a webhook run; its tool calls are charged to the budget) and answers its result. Send the same request_id again to get the same run instead of a new one.`,
    inputSchema: {
      type: 'object',
      properties: {
        prompt: { type: 'string', minLength: 1, maxLength: 100_000, description: 'The input of the run' },
        request_id: {
          type: 'string',
          pattern: '^[A-Za-z0-9._:@-]{1,128}$',
          description: 'Makes the trigger idempotent: the same id answers the same run',
        },
      },
      required: ['prompt'],
      additionalProperties: false,
    },
    annotations: { title, readOnlyHint: false, openWorldHint: true },
    _meta: { 'agent-commerce/workflow': { workflow_id: wf.workflow_id, version: wf.version } },
  };
}
