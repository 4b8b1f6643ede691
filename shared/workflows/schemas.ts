import Joi from 'joi';
import { validateWorkflowGraph } from './graph';
import type { GraphProblem, WorkflowEdge, WorkflowNode } from './types';

export { validateWorkflowGraph } from './graph';

export const workflowIdSchema = Joi.string().pattern(/^wf_[A-Za-z0-9_-]{1,64}$/);
export const credentialNameSchema = Joi.string().pattern(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/);
export const semverSchema = Joi.string().pattern(/^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})$/);

/** A workflow definition as an operator writes it (workflow:create --file). Node fields are checked by validateWorkflowGraph. */
export const workflowInputSchema = Joi.object({
  id: workflowIdSchema.optional(),
  name: Joi.string().trim().min(1).max(200).required(),
  description: Joi.string().allow('').max(4000).default(''),
  nodes: Joi.array().items(Joi.object().unknown(true)).min(1).max(100).required(),
  edges: Joi.array().items(Joi.object().unknown(true)).max(1000).default([]),
  credentials: Joi.array().items(credentialNameSchema).unique().max(50).default([]),
  status: Joi.string().valid('draft', 'published').default('draft'),
  version: semverSchema.optional(),
});

export interface WorkflowInput {
  id?: string;
  name: string;
  description: string;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  credentials: string[];
  status: 'draft' | 'published';
  /** With status published: the first version's number (default 1.0.0). */
  version?: string;
}

/** Validates a definition: joi for its envelope, validateWorkflowGraph for the graph; problems carry paths. */
export function parseWorkflowInput(
  input: unknown,
): { value: WorkflowInput; problems: [] } | { value?: undefined; problems: GraphProblem[] } {
  const { value, error } = workflowInputSchema.validate(input, { abortEarly: false, convert: true });
  if (error) {
    return {
      problems: error.details.map((d) => ({
        path: d.path
          .map((p) => (typeof p === 'number' ? `[${p}]` : p))
          .join('.')
          .replace(/\.\[/g, '['),
        code: 'invalid_definition',
        message: d.message,
      })),
    };
  }
  const problems = validateWorkflowGraph(value.nodes, value.edges, value.credentials);
  return problems.length ? { problems } : { value: value as WorkflowInput, problems: [] };
}
