import { type RequestHandler, type Response, Router } from 'express';
import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import type { Db } from '../../shared/composition/store';
import type { ToolCallOutcome } from '../../shared/payments/index';
import {
  budgetBody as budgetSchema,
  type CreditInvokeBody,
  creditInvokeBody,
  listToolsQuery,
} from '../../shared/tools/index';
import { jsonBody, jsonBodyErrors } from '../http/middleware/json-body';
import { isInvoke, perClientLimit } from '../http/middleware/limits';
import { requireStore } from '../http/middleware/require-store';
import { signed } from '../http/middleware/signed';
import { paymentHeader, singlePaymentMode } from '../http/middleware/single-payment-mode';
import { mountOperations } from '../http/operations/mount';
import { anyObject, EXAMPLE, ok, signedReceipt, toolError, x402Receipt } from '../http/operations/shapes';
import type { Operation } from '../http/operations/types';
import { SIWX_HEADER } from '../payments/presenters';
import { challengeSchema } from '../payments/routes';
import { budgetBody, invokeSuccessBody } from './presenters';

/** Invokes answer in the tool error shape (400 for validation); list and budget in the 422 shape. */
const shapeByPath: RequestHandler = (req, res, next) => {
  res.locals.errorShape = /\/invoke\/?$/.test(req.path) ? 'tool' : 'validation';
  next();
};

const invokeAnswer = Joi.object({
  success: Joi.boolean().valid(true).required(),
  receipt: signedReceipt.description(
    'calls paid from credits (signed requests, sign-in-with-x), where payments are configured: the signed receipt of the credit debit, also in the PAYMENT-RESPONSE header',
  ),
  response: Joi.any().required(),
  warnings: Joi.array(),
  credits_charged: Joi.number(),
  transaction_id: Joi.string().allow(null),
  x402: x402Receipt,
});
/** x402 mode: the settled payment sent again without its payer's proof: its status and receipt, never the result. */
const settledStatusAnswer = Joi.object({
  success: Joi.boolean().valid(true).required(),
  status: Joi.string().valid('settled').required(),
  message: Joi.string().required(),
  payment_id: Joi.string().required(),
  x402: x402Receipt.required(),
  extensions: anyObject.description(
    '`sign-in-with-x`: the challenge the payer signs (SIGN-IN-WITH-X, beside the same payment) for the result',
  ),
});
const settlingAnswer = Joi.object({
  success: Joi.boolean().valid(false).required(),
  status: Joi.string().valid('settling').required(),
  message: Joi.string().required(),
  x402: anyObject,
}).unknown();
const listEntrySchema = Joi.object({
  product_id: Joi.string().required(),
  slug: Joi.string().required(),
  name: Joi.string().required(),
  display_name: Joi.string().allow(null, ''),
  description: Joi.string().allow(null, ''),
  categories: Joi.array().items(Joi.string()),
  actions: Joi.array()
    .items(
      Joi.object({
        slug: Joi.string().required(),
        name: Joi.string().required(),
        description: Joi.string().allow(null, ''),
        parameters_schema: anyObject,
        price_credits: Joi.number().allow(null),
        x402_price_usd: Joi.string()
          .pattern(/^\d+(\.\d+)?$/)
          .allow(null)
          .description('USD as a decimal string'),
        invoke_url: Joi.string().required(),
      }).unknown(),
    )
    .required(),
}).unknown();
const listAnswer = Joi.object({
  success: Joi.boolean().valid(true).required(),
  tools: Joi.array().items(listEntrySchema).required(),
  pagination: Joi.object({
    page: Joi.number().integer().required(),
    page_size: Joi.number().integer().required(),
    total_count: Joi.number().integer().required(),
    total_pages: Joi.number().integer().required(),
    has_more: Joi.boolean().required(),
    next_page: Joi.number().integer().allow(null).required(),
    default_page_size: Joi.number().integer().required(),
    max_page_size: Joi.number().integer().required(),
  }).required(),
});
const budgetAnswer = ok(
  Joi.object({
    wallet_address: Joi.string().required(),
    per_call_credits: Joi.number().allow(null).required(),
    daily_credits: Joi.number().allow(null).required(),
    set_by: Joi.string().required(),
    updated_at: Joi.string().isoDate().required(),
  }),
);
const slugParams = Joi.object({ productSlug: Joi.string().required(), actionSlug: Joi.string().required() });
const exampleEntry = {
  product_id: '65f0c3a2b1d4e5f60718293a',
  slug: 'weather',
  name: 'weather',
  display_name: 'Weather',
  description: 'Forecasts',
  categories: ['data'],
  actions: [
    {
      slug: 'forecast',
      name: 'Forecast',
      description: 'A forecast',
      parameters_schema: { type: 'object' },
      price_credits: 5,
      x402_price_usd: '0.01',
      invoke_url: 'https://agents.example.com/api/external/tools/weather/actions/forecast/invoke',
    },
  ],
};
const invoked = { success: true, response: { temperature_c: 18 }, credits_charged: 5, transaction_id: 'tx_1' };

/** Mounted at /api/external/tools, ahead of the generic external router (it sets its own error shape first). */
export function toolRoutes(operations: Operation[], services: Services, db: Db): Router {
  const router = Router();
  router.use(
    shapeByPath,
    perClientLimit(services.limits.invokePerClient, 'invoke', { only: isInvoke }),
    jsonBody,
    jsonBodyErrors,
    requireStore(db),
  );
  router.use(mountOperations(operations, '/api/external/tools'));
  return router;
}

export function toolOperations(services: Services): Operation[] {
  const tools = services.tools;
  /** The outcome of a tool call as HTTP: the x402 path's own answer, or the success envelope (with its receipt). */
  const answer = (res: Response, outcome: ToolCallOutcome) => {
    if (outcome.kind === 'x402') {
      const { status, headers, body } = outcome.answer;
      res.set(headers).status(status).json(body);
      return;
    }
    res
      .set(outcome.headers)
      .json({ ...invokeSuccessBody(outcome.out), ...(outcome.receipt ? { receipt: outcome.receipt } : {}) });
  };
  const common = { host: 'main', tag: 'Tools' } as const;

  return [
    {
      ...common,
      id: 'listTools',
      method: 'get',
      path: '/api/external/tools',
      auth: [{ kind: 'none' }],
      summary: 'Active, listed products with their actions and prices',
      request: { query: listToolsQuery },
      responses: { 200: { description: 'A page of tools', body: listAnswer } },
      errorStatuses: [],
      errors: 'validation',
      examples: [
        {
          name: 'first page',
          request: { query: { query: 'weather', page: 1, page_size: 10 } },
          response: {
            status: 200,
            body: {
              success: true,
              tools: [exampleEntry],
              pagination: {
                page: 1,
                page_size: 10,
                total_count: 1,
                total_pages: 1,
                has_more: false,
                next_page: null,
                default_page_size: 100,
                max_page_size: 1000,
              },
            },
          },
        },
      ],
      handler: async (_req, res) => {
        res.json(await tools.list(res.locals.query));
      },
    },
    {
      ...common,
      id: 'setToolBudget',
      method: 'post',
      path: '/api/external/tools/budget',
      auth: [{ kind: 'signed', action: 'tool_budget', productLine: '-' }],
      summary: 'Cap the credits tool calls may spend (per call, per day); null lifts a cap',
      request: { body: budgetSchema },
      responses: { 200: { description: 'The budget', body: budgetAnswer } },
      errorStatuses: [401],
      errors: 'validation',
      examples: [
        {
          name: 'capped',
          request: { body: { ...EXAMPLE.envelope, per_call_credits: 50, daily_credits: 1000 } },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                wallet_address: EXAMPLE.wallet,
                per_call_credits: 50,
                daily_credits: 1000,
                set_by: 'wallet',
                updated_at: EXAMPLE.time,
              },
            },
          },
        },
      ],
      middleware: [signed(services, 'tool_budget')],
      handler: async (_req, res) => {
        const b = res.locals.body;
        res.json(
          budgetBody(
            await tools.setBudget(
              res.locals.wallet,
              { per_call_credits: b.per_call_credits, daily_credits: b.daily_credits },
              'wallet',
            ),
          ),
        );
      },
    },
    {
      ...common,
      id: 'invokeToolById',
      method: 'post',
      path: '/api/external/tools/{productId}/invoke',
      auth: [
        { kind: 'signed', action: 'POST /external/tools/{productId}/invoke (path form)', productLine: '(path form)' },
      ],
      summary: 'Invoke a product (its only action, or parameters.action) paid with credits',
      request: { params: Joi.object({ productId: Joi.string().required() }), body: creditInvokeBody },
      responses: { 200: { description: 'The tool invoke success envelope', body: invokeAnswer } },
      errorStatuses: [400, 401, 402, 404, 409, 429, 502, 504],
      errors: 'tool',
      examples: [
        {
          name: 'forecast',
          request: { params: { productId: 'weather' }, body: { ...EXAMPLE.envelope, parameters: { city: 'Lisbon' } } },
          response: { status: 200, body: invoked },
        },
      ],
      handler: async (req, res) => {
        const envelope = req.body as CreditInvokeBody;
        answer(res, await services.toolCalls.invokeProduct({ product: String(req.params.productId), envelope }));
      },
    },
    {
      ...common,
      id: 'invokeToolAction',
      method: 'post',
      path: '/api/external/tools/{productSlug}/actions/{actionSlug}/invoke',
      auth: [
        {
          kind: 'signed',
          action: 'POST /external/tools/{productSlug}/actions/{actionSlug}/invoke (path form)',
          productLine: '(path form)',
        },
        { kind: 'x402' },
      ],
      summary: 'Invoke an action: signed with credits, paid directly with x402, or signed in with x (credits)',
      description:
        'Signed-credit mode: the body is the envelope plus `parameters`. Direct x402 mode: the body is the action parameters themselves; the first call answers 402 with the challenge, the retry of the identical body with X-PAYMENT answers the result with an `x402` block. The same payment sent again (anyone can rebuild a settled authorization from the chain) answers its status and receipt; the payer gets the result again with its SIGN-IN-WITH-X proof beside the payment (docs/x402.md, "Payer proof").',
      request: {
        params: slugParams,
        body: Joi.alternatives(
          creditInvokeBody,
          Joi.object().unknown().description('x402 mode: the action parameters'),
        ),
        headers: Joi.object({
          'x-payment': Joi.string().allow('').description('base64 x402 payment envelope (x402 mode)'),
          'sign-in-with-x': Joi.string()
            .max(8192)
            .description(
              "x402 mode: a sign-in-with-x proof (base64 JSON, from the 402's extensions). Alone: paid from the wallet's prepaid credits, no on-chain payment. Beside X-PAYMENT with a settled payment: the payer's proof, which gets that payment's recorded result",
            ),
        }),
      },
      // Which schema applies depends on the mode; the handler checks (400 in the tool shape).
      validation: 'handler',
      responses: {
        200: {
          description:
            "The tool invoke success envelope; x402 mode, the settled payment sent again without its payer's SIGN-IN-WITH-X proof: its status and receipt only (`status: settled`, no `response`)",
          body: Joi.alternatives(invokeAnswer, settledStatusAnswer),
        },
        202: {
          description:
            "x402 mode: the payment is verified and still settling, no result yet; once settled, send the same payment again with the payer's SIGN-IN-WITH-X proof",
          body: settlingAnswer,
        },
        402: {
          description:
            'x402 mode: the challenge (retry the same body with X-PAYMENT); credits mode: not enough credits (tool error shape)',
          body: Joi.alternatives(challengeSchema, toolError),
        },
      },
      errorStatuses: [400, 401, 404, 409, 429, 502, 504],
      errors: 'tool',
      examples: [
        {
          name: 'credits',
          request: {
            params: { productSlug: 'weather', actionSlug: 'forecast' },
            body: { ...EXAMPLE.envelope, parameters: { city: 'Lisbon' } },
          },
          response: { status: 200, body: invoked },
        },
        {
          name: 'x402 mismatch',
          request: { params: { productSlug: 'weather', actionSlug: 'forecast' }, body: { action: 'history' } },
          response: {
            status: 400,
            body: {
              success: false,
              error: 'the body is for action history, the path for forecast',
              code: 'action_mismatch',
              details: { path_action: 'forecast', body_action: 'history' },
            },
          },
        },
      ],
      before: [singlePaymentMode],
      handler: async (req, res) => {
        const outcome = await services.toolCalls.invoke({
          product: String(req.params.productSlug),
          action: String(req.params.actionSlug),
          body: req.body as unknown,
          payment: paymentHeader(req),
          signInWithX: req.get(SIWX_HEADER),
        });
        answer(res, outcome);
      },
    },
  ];
}
