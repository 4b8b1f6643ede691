import Joi from 'joi';
import { envelopeFields, walletAddress } from '../identity/index';
import type { ActionRunner } from './models/tool-product';
import { LIST_MAX_PAGE_SIZE, SLUG_PATTERN } from './rules';

const slug = Joi.string()
  .pattern(SLUG_PATTERN)
  .messages({ 'string.pattern.base': 'must be 1-64 of a-z 0-9 . _ ~ - starting with a letter or digit' });
const category = Joi.string()
  .pattern(/^[a-z0-9][a-z0-9 _-]{0,39}$/)
  .lowercase();

export interface ListToolsQuery {
  query?: string;
  categories?: string;
  page: number;
  page_size: number;
}

export const listToolsQuery = Joi.object<ListToolsQuery>({
  query: Joi.string().trim().max(200).allow(''),
  categories: Joi.string().max(500).allow(''),
  page: Joi.number().integer().min(1).max(1_000_000).default(1),
  page_size: Joi.number().integer().min(1).max(LIST_MAX_PAGE_SIZE).default(100),
});

export interface ProductInput {
  slug: string;
  name: string;
  display_name?: string;
  description?: string;
  categories?: string[];
  active?: boolean;
  private?: boolean;
  extra?: Record<string, unknown>;
}

export const productInput = Joi.object<ProductInput>({
  slug: slug.required(),
  name: Joi.string()
    .pattern(/^[A-Za-z0-9_.-]{1,64}$/)
    .required()
    .messages({ 'string.pattern.base': 'must be a function name: 1-64 of A-Z a-z 0-9 _ . -' }),
  display_name: Joi.string().max(120),
  description: Joi.string().max(4000).allow(''),
  categories: Joi.array().items(category).max(20).unique(),
  active: Joi.boolean(),
  private: Joi.boolean(),
  extra: Joi.object().unknown(true),
});

export type ProductPatch = Partial<Omit<ProductInput, 'slug'>>;
export const productPatch = productInput
  .fork(['slug', 'name'], (s) => s.optional())
  .keys({ slug: Joi.forbidden() })
  .min(1);

export interface ActionInput {
  slug: string;
  name?: string;
  description?: string;
  parameters_schema?: Record<string, unknown>;
  credits: number;
  x402_usd?: string | null;
  runner: ActionRunner;
}

const runner = Joi.alternatives().conditional('.kind', {
  switch: [
    {
      is: 'http',
      then: Joi.object({
        kind: Joi.string().valid('http').required(),
        url: Joi.string()
          .uri({ scheme: ['http', 'https'] })
          .required(),
        method: Joi.string().valid('POST', 'GET').default('POST'),
        timeout_ms: Joi.number().integer().min(100).max(60_000).default(10_000),
        auth_header: Joi.string().pattern(/^[A-Za-z0-9-]{1,64}$/),
        auth_scheme: Joi.string()
          .pattern(/^[A-Za-z0-9-]{0,32}$/)
          .allow(''),
        secret: Joi.string().pattern(/^[A-Za-z0-9_.:-]{1,64}$/),
      }),
    },
    {
      is: 'builtin',
      then: Joi.object({
        kind: Joi.string().valid('builtin').required(),
        handler: Joi.string()
          .pattern(/^[a-z0-9_.]{1,64}$/)
          .required(),
        timeout_ms: Joi.number().integer().min(100).max(60_000).default(5_000),
      }),
    },
  ],
  otherwise: Joi.any().invalid(Joi.any()).messages({ 'any.invalid': 'runner.kind must be http or builtin' }),
});

export const actionInput = Joi.object<ActionInput>({
  slug: slug.required(),
  name: Joi.string().max(64),
  description: Joi.string().max(4000).allow(''),
  parameters_schema: Joi.object().unknown(true),
  credits: Joi.number().integer().min(1).max(1_000_000).required(),
  x402_usd: Joi.string()
    .pattern(/^\d{1,6}(\.\d{1,6})?$/)
    .allow(null),
  runner: runner.required(),
});

export interface CreditInvokeBody {
  wallet_address: string;
  session_nonce: string;
  request_id: string;
  signature: string;
  parameters?: Record<string, unknown>;
}

export const creditInvokeBody = Joi.object<CreditInvokeBody>({
  ...envelopeFields,
  parameters: Joi.object().unknown(true),
});

export interface PurchaseBody {
  product_id: string;
  parameters?: Record<string, unknown>;
}

export const purchaseBody = Joi.object<PurchaseBody>({
  product_id: Joi.string().max(200).required(),
  parameters: Joi.object().unknown(true),
});

export interface IssueReportBody {
  product_id: string;
  error_message: string;
  recommended_improvements?: string;
}

export const issueReportBody = Joi.object<IssueReportBody>({
  product_id: Joi.string().max(200).required(),
  error_message: Joi.string().max(8000).required(),
  recommended_improvements: Joi.string().max(8000).allow(''),
});

export interface CatalogQuery {
  page?: number;
  page_size?: number;
  size?: number;
}

export const catalogQuery = Joi.object<CatalogQuery>({
  page: Joi.number().integer().min(1).max(1_000_000),
  page_size: Joi.number().integer().min(1).max(100),
  size: Joi.number().integer().min(1).max(100),
});

export interface BudgetInput {
  per_call_credits: number | null;
  daily_credits: number | null;
}

const cap = Joi.number().integer().min(0).max(1_000_000_000).allow(null);
export const budgetFields = { per_call_credits: cap.default(null), daily_credits: cap.default(null) };
export const budgetBody = Joi.object({ ...envelopeFields, ...budgetFields });
export const budgetOperatorInput = Joi.object({ wallet: walletAddress.required(), ...budgetFields });
