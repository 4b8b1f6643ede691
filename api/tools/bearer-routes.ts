import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import {
  instanceId,
  instanceMetadata,
  issueReportBody,
  PAGE_MAX,
  PAGE_SIZE_MAX,
  pageQuery,
  pageRequest,
  purchaseBody,
} from '../../shared/tools/index';
import { bearer } from '../http/middleware/bearer';
import { perClientLimit, perWalletLimit } from '../http/middleware/limits';
import { anyObject } from '../http/operations/shapes';
import type { Operation } from '../http/operations/types';

// Sent empty, these read as absent; their content is checked in the handler (400, codes of their own).
const instanceHeaders = {
  'x-instance-id': Joi.string().allow('').description('Echo the instance_id of an earlier answer to keep its context'),
  'x-instance-metadata': Joi.string().allow('').description('A JSON string'),
};
// Checked by the mount even when the query is sent too (the query wins, a header beside it must still be valid).
const fetchHeaders = Joi.object({
  'x-page': Joi.number().integer().min(1).max(PAGE_MAX),
  'x-page-size': Joi.number().integer().min(1).max(PAGE_SIZE_MAX),
  ...instanceHeaders,
});

const catalogEntry = Joi.object({
  product_id: Joi.string().required(),
  name: Joi.string().required(),
  display_name: Joi.string().allow(null, ''),
  description: Joi.string().allow(null, ''),
  categories: Joi.array().items(Joi.string()),
  actions: Joi.array()
    .items(
      Joi.object({
        name: Joi.string().required(),
        description: Joi.string().allow(null, ''),
        parameters: anyObject,
        price_credits: Joi.number(),
      }).unknown(),
    )
    .required(),
}).unknown();
const fetchAnswer = Joi.object({
  success: Joi.boolean().valid(true).required(),
  instance_id: Joi.string().required(),
  details: Joi.object({
    tools_on_this_page: Joi.number().integer().required(),
    total_qualified_tools: Joi.number().integer().required(),
    page_returned: Joi.number().integer().required(),
    page_size_requested: Joi.number().integer().required(),
    page_source: Joi.string().valid('header', 'query', 'default').required(),
    page_size_source: Joi.string().valid('header', 'query', 'default').required(),
    total_pages: Joi.number().integer().required(),
    has_next_page: Joi.boolean().required(),
    has_previous_page: Joi.boolean().required(),
  }).required(),
  preprompt: Joi.string().required(),
  tools: Joi.array().items(catalogEntry).required(),
  pagination: Joi.object({
    page: Joi.number().integer().required(),
    page_size: Joi.number().integer().required(),
    total_count: Joi.number().integer().required(),
    total_pages: Joi.number().integer().required(),
    has_next: Joi.boolean().required(),
    has_prev: Joi.boolean().required(),
  }).required(),
  example_tool_call: Joi.string(),
});
const purchaseAnswer = Joi.object({
  success: Joi.boolean().valid(true).required(),
  data: Joi.any(),
  order_id: Joi.string().required(),
  instance_id: Joi.string().required(),
  warnings: Joi.array(),
});
const reportAnswer = Joi.object({
  success: Joi.boolean().valid(true).required(),
  message: Joi.string().required(),
  data: Joi.object({
    issue_id: Joi.string().required(),
    product_found: Joi.boolean().required(),
    lookup_method: Joi.string().required(),
    product_id: Joi.string().required(),
    product_name: Joi.string(),
    status: Joi.string().required(),
  }).required(),
});

// A key the caller meant but we cannot use is refused (422), not dropped: a retry would be charged again.
const idempotencyKey = Joi.string()
  .pattern(/^[A-Za-z0-9._:-]{1,128}$/)
  .messages({
    'string.pattern.base': 'must be 1-128 of A-Z a-z 0-9 . _ : -',
    'string.empty': 'must be 1-128 of A-Z a-z 0-9 . _ : -',
  });
const AUTH = { authorization: 'Bearer act_2c5e8f0a1b3d4c6e7f809a1b2c3d4e5f' };
const INSTANCE = 'inst_4f1c2e9a0b7d6c5e3a8f9b01';

/** The bearer catalog on {api_url}: /products/fetch, /products/purchase, /issues/report. */
export function bearerToolOperations(services: Services): Operation[] {
  const catalog = services.toolCatalog;
  const common = {
    host: 'bearer',
    auth: [{ kind: 'act' }],
    tag: 'Bearer catalog',
    errors: 'gateway',
    before: [bearer(services)],
  } as const;
  return [
    {
      ...common,
      id: 'fetchProducts',
      method: 'get',
      path: '/products/fetch',
      summary: 'A page of the tool catalog',
      description:
        'Page and page size come from the query or the X-Page / X-Page-Size headers (the query wins; a header sent beside it must still be valid).',
      request: { query: pageQuery, headers: fetchHeaders },
      // pageRequest checks the query's paging itself (422 `detail[]`); the headers are checked by the mount.
      validation: 'handler',
      responses: { 200: { description: 'One page of tools', body: fetchAnswer } },
      errorStatuses: [400, 401, 422],
      examples: [
        {
          name: 'first page',
          request: { headers: AUTH, query: { page: 1, page_size: 10 } },
          response: {
            status: 200,
            body: {
              success: true,
              instance_id: INSTANCE,
              details: {
                tools_on_this_page: 1,
                total_qualified_tools: 1,
                page_returned: 1,
                page_size_requested: 10,
                page_source: 'query',
                page_size_source: 'query',
                total_pages: 1,
                has_next_page: false,
                has_previous_page: false,
              },
              preprompt: 'Tools you can call through POST /products/purchase.',
              tools: [
                {
                  product_id: 'weather',
                  name: 'weather',
                  display_name: 'Weather',
                  description: 'Forecasts',
                  categories: ['data'],
                  actions: [
                    { name: 'forecast', description: 'A forecast', parameters: { type: 'object' }, price_credits: 5 },
                  ],
                },
              ],
              pagination: { page: 1, page_size: 10, total_count: 1, total_pages: 1, has_next: false, has_prev: false },
            },
          },
        },
      ],
      handler: async (req, res) => {
        const paging = pageRequest(req.query as Record<string, unknown>, res.locals.headers ?? {});
        instanceMetadata(req.header('x-instance-metadata'));
        const instance = instanceId(req.header('x-instance-id'));
        res.set('x-instance-id', instance).json(await catalog.fetch(paging, instance));
      },
    },
    {
      ...common,
      id: 'purchaseProduct',
      method: 'post',
      path: '/products/purchase',
      summary: "Call a tool, paid with the wallet's credits",
      request: { body: purchaseBody, headers: Joi.object({ ...instanceHeaders, 'idempotency-key': idempotencyKey }) },
      responses: { 200: { description: "The tool's payload", body: purchaseAnswer } },
      errorStatuses: [400, 401, 402, 404, 409, 422, 429, 502, 504],
      before: [
        perClientLimit(services.limits.invokePerClient, 'invoke'),
        bearer(services),
        perWalletLimit(services.limits.invokePerWallet, 'invoke'),
      ],
      examples: [
        {
          name: 'forecast',
          request: {
            headers: AUTH,
            body: { product_id: 'weather', parameters: { action: 'forecast', city: 'Lisbon' } },
          },
          response: {
            status: 200,
            body: {
              success: true,
              data: { temperature_c: 18 },
              order_id: 'ord_0a1b2c3d4e5f60718293a4b5',
              instance_id: INSTANCE,
            },
          },
        },
      ],
      handler: async (req, res) => {
        const metadata = instanceMetadata(req.header('x-instance-metadata'));
        const instance = instanceId(req.header('x-instance-id'));
        const key: string | undefined = res.locals.headers?.['idempotency-key'];
        const body = await catalog.purchase(res.locals.wallet, res.locals.body, {
          instance,
          metadata,
          idempotencyKey: key,
        });
        res.set('x-instance-id', instance).json(body);
      },
    },
    {
      ...common,
      id: 'reportIssue',
      method: 'post',
      path: '/issues/report',
      summary: 'Report a problem with a tool',
      request: { body: issueReportBody, headers: Joi.object({ 'x-instance-id': instanceHeaders['x-instance-id'] }) },
      responses: { 200: { description: 'Stored', body: reportAnswer } },
      errorStatuses: [400, 401],
      examples: [
        {
          name: 'reported',
          request: { headers: AUTH, body: { product_id: 'weather', error_message: 'timeout after 30 s' } },
          response: {
            status: 200,
            body: {
              success: true,
              message: 'issue reported',
              data: {
                issue_id: 'iss_1',
                product_found: true,
                lookup_method: 'id',
                product_id: 'weather',
                product_name: 'Weather',
                status: 'open',
              },
            },
          },
        },
      ],
      handler: async (req, res) => {
        const header = req.header('x-instance-id');
        res.json(await catalog.report(res.locals.wallet, res.locals.body, header ? instanceId(header) : undefined));
      },
    },
  ];
}
