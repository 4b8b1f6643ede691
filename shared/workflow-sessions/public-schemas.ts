import Joi from 'joi';
import { PRICE_ESTIMATE_DESCRIPTION } from './public-summary';

/** Bounds of GET /api/external/workflows. */
export const WORKFLOW_LIST_LIMIT = { default: 20, max: 100 } as const;
export const WORKFLOW_LIST_SKIP_MAX = 10_000;

const csv = Joi.string()
  .trim()
  .max(500)
  .pattern(/^[^,]{1,64}(,[^,]{1,64}){0,19}$/)
  .messages({ 'string.pattern.base': 'must be up to 20 comma-separated values of 1-64 characters' });

export const workflowListQuerySchema = Joi.object({
  query: Joi.string().trim().max(200).allow(''),
  categories: csv,
  industry_tags: csv,
  publisher: Joi.string()
    .trim()
    .pattern(/^(0x[0-9a-fA-F]{40}|ws_[A-Za-z0-9_-]{1,64})$/)
    .messages({ 'string.pattern.base': 'must be a wallet address (0x…) or a workspace id (ws_…)' }),
  limit: Joi.number().integer().min(1).max(WORKFLOW_LIST_LIMIT.max).default(WORKFLOW_LIST_LIMIT.default),
  skip: Joi.number().integer().min(0).max(WORKFLOW_LIST_SKIP_MAX).default(0),
});

export interface WorkflowListQuery {
  query?: string;
  categories?: string;
  industry_tags?: string;
  publisher?: string;
  limit: number;
  skip: number;
}

export const splitCsv = (v: string | undefined): string[] | undefined =>
  v
    ? v
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean)
    : undefined;

const isoDate = Joi.string().isoDate();

const publisherSchema = Joi.object({
  type: Joi.string().valid('wallet', 'workspace', 'platform').required(),
  id: Joi.string()
    .required()
    .description(
      'the wallet address (lower-case), the workspace id, or "platform" for an operator workflow without a workspace',
    ),
});

/** One element of `data.workflows` of GET /api/external/workflows. */
export const publishedWorkflowSummarySchema = Joi.object({
  workflow_id: Joi.string().required(),
  name: Joi.string().required(),
  description: Joi.string().allow('').required(),
  latest_version: Joi.string().required(),
  published_at: isoDate.required().description('when latest_version was published'),
  publisher: publisherSchema.required(),
  job_id: Joi.string().allow(null).required().description('the workflow_creation job it was made for, if any'),
  categories: Joi.array().items(Joi.string()).required(),
  industry_tags: Joi.array().items(Joi.string()).required(),
  time_saved_minutes: Joi.number().allow(null).required(),
  nodes_summary: Joi.object({
    count: Joi.number().integer().required(),
    by_type: Joi.object().pattern(Joi.string(), Joi.number().integer()).required(),
    tools: Joi.array()
      .items(
        Joi.object({
          node_id: Joi.string().required(),
          product: Joi.string().required(),
          action: Joi.string().allow(null).required(),
        }),
      )
      .required(),
    uses_model: Joi.boolean().required(),
  }).required(),
  price_estimate: Joi.object({
    credits: Joi.number().integer().required(),
    basis: Joi.string().valid('catalog_prices').required(),
  })
    .allow(null)
    .required()
    .description(PRICE_ESTIMATE_DESCRIPTION),
});

/** `data` of GET /api/external/workflows/{workflowId}: the summary plus versions and the latest version's graph outline. */
export const publishedWorkflowDetailSchema = publishedWorkflowSummarySchema.keys({
  versions: Joi.array()
    .items(Joi.object({ version: Joi.string().required(), published_at: isoDate.required() }))
    .required(),
  mcp_server_name: Joi.string().allow(null).required(),
  default_export_target: Joi.string().allow(null).required(),
  nodes: Joi.array()
    .items(
      Joi.object({
        id: Joi.string().required(),
        type: Joi.string().required(),
        name: Joi.string(),
        product: Joi.string(),
        action: Joi.string(),
      }),
    )
    .required()
    .description('outline only: templates, prompts and tool parameters are not shown'),
  edges: Joi.array()
    .items(Joi.object({ from: Joi.string().required(), to: Joi.string().required(), when: Joi.boolean() }))
    .required(),
});
