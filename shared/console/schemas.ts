import Joi from 'joi';
import { X402_PAYMENT_STATES } from '../payments/index';

/** The statuses a run can be in (filter values). */
export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed', 'setup_required', 'cancelled'] as const;

/** A page of runs holds at most this many. */
export const MAX_RUNS_PAGE = 100;

/** A local date-time as an <input type="datetime-local"> sends it, or a full ISO date. */
const when = Joi.alternatives(
  Joi.string().pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/),
  Joi.string().isoDate(),
).allow('');

/** The runs page's query: filters, the cursor and the page size. Empty fields mean "any". */
export const runsQuerySchema = Joi.object({
  status: Joi.string()
    .valid(...RUN_STATUSES)
    .allow(''),
  group: Joi.string()
    .pattern(/^grp_[0-9a-f]{16}$/)
    .allow(''),
  workflow: Joi.string()
    .pattern(/^wf_[A-Za-z0-9_-]{1,64}$/)
    .allow(''),
  from: when,
  to: when,
  cursor: Joi.string()
    .pattern(/^[0-9a-z]{1,12}\.run_[0-9a-f]{24}$/)
    .allow(''),
  limit: Joi.number().integer().min(1).max(MAX_RUNS_PAGE).default(50),
});

/** The sign-in form: a workspace API key or an operator key (its shape is checked by the lookup; bounded here). */
export const signInBodySchema = Joi.object({ api_key: Joi.string().max(200).required() });

/** Every other form carries the session's form token and at most a few short fields. */
export const formToken = Joi.string().max(100).required();

/** An operator page's size: at most MAX_OPERATOR_PAGE rows (operator.ts). */
const operatorLimit = Joi.number().integer().min(1).max(100).default(50);

/** The operator's catalog page: its cursor (base64url of the last row's name and id) and size. */
export const operatorCatalogQuerySchema = Joi.object({
  cursor: Joi.string()
    .pattern(/^[A-Za-z0-9_-]{1,700}$/)
    .allow(''),
  limit: operatorLimit,
});

/** The operator's settlements page: a status filter, the cursor (time and payment id) and size. */
export const operatorSettlementsQuerySchema = Joi.object({
  status: Joi.string()
    .valid(...X402_PAYMENT_STATES)
    .allow(''),
  cursor: Joi.string()
    .pattern(/^[0-9a-z]{1,12}\.[0-9a-zA-Z:]{1,200}$/)
    .allow(''),
  limit: operatorLimit,
});

/** The operator's ledger page: a wallet address or a workspace's account (`ws:ws_…`), and the position to read before. */
export const operatorLedgerQuerySchema = Joi.object({
  account: Joi.string()
    .trim()
    .pattern(/^(0x[0-9a-fA-F]{40}|ws:ws_[A-Za-z0-9_-]{1,64})$/)
    .allow(''),
  before: Joi.number().integer().min(2).max(Number.MAX_SAFE_INTEGER),
  limit: operatorLimit,
});
