import Joi from 'joi';
import { type Bump, BUMPS } from './job-workflow-rules';

/** The envelope fields are checked by the signed middleware (or absent with X-Job-Workflow-Token). */
const envelopeKeys = {
  wallet_address: Joi.any(),
  session_nonce: Joi.any(),
  request_id: Joi.any(),
  signature: Joi.any(),
};

const tagList = Joi.array().items(Joi.string().trim().lowercase().min(1).max(64)).unique().max(20);

const fields = {
  name: Joi.string().trim().min(1).max(200),
  description: Joi.string().allow('').max(4000),
  time_saved_minutes: Joi.number().min(0).max(1_000_000),
  nodes: Joi.array().items(Joi.object().unknown(true)).max(100),
  edges: Joi.array().items(Joi.object().unknown(true)).max(1000),
  mcp_server_name: Joi.string().trim().min(1).max(200),
  default_export_target: Joi.string().trim().min(1).max(200),
  categories: tagList.description(
    'listing categories (an extension of the spec; filtered on by GET /workflows?categories=)',
  ),
  industry_tags: tagList.description(
    'listing industry tags (an extension of the spec; filtered on by GET /workflows?industry_tags=)',
  ),
};

export const jobWorkflowCreateSchema = Joi.object({ ...envelopeKeys, ...fields, name: fields.name.required() });
export const jobWorkflowUpdateSchema = Joi.object({ ...envelopeKeys, ...fields });
export const jobWorkflowPublishSchema = Joi.object({ ...envelopeKeys, bump: Joi.string().valid(...BUMPS) });

export interface JobWorkflowFields {
  name?: string;
  description?: string;
  time_saved_minutes?: number;
  nodes?: Array<Record<string, unknown>>;
  edges?: Array<Record<string, unknown>>;
  mcp_server_name?: string;
  default_export_target?: string;
  categories?: string[];
  industry_tags?: string[];
}
export interface JobWorkflowPublishBody {
  bump?: Bump;
}

const isoDate = Joi.string().isoDate();

/** `data` of create, update and publish: the wallet's workflow as the author sees it (draft included). */
export const jobWorkflowViewSchema = Joi.object({
  workflow_id: Joi.string().required(),
  job_id: Joi.string().required(),
  owner_wallet: Joi.string().required(),
  name: Joi.string().required(),
  description: Joi.string().allow('').required(),
  status: Joi.string()
    .valid('draft', 'published')
    .required()
    .description('published once any version is published; the draft may have changed since'),
  nodes: Joi.array().items(Joi.object().unknown(true)).required().description('the draft'),
  edges: Joi.array().items(Joi.object().unknown(true)).required().description('the draft'),
  time_saved_minutes: Joi.number().allow(null).required(),
  mcp_server_name: Joi.string().allow(null).required(),
  default_export_target: Joi.string().allow(null).required(),
  categories: Joi.array().items(Joi.string()).required(),
  industry_tags: Joi.array().items(Joi.string()).required(),
  latest_version: Joi.string().allow(null).required(),
  versions: Joi.array()
    .items(Joi.object({ version: Joi.string().required(), published_at: isoDate.required() }))
    .required(),
  published_version: Joi.string().description('publish only: the version this call created'),
  created_at: isoDate.required(),
  updated_at: isoDate.required(),
});
