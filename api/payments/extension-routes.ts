import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import {
  DISCOVERY_MAX_LIMIT,
  PAYMENT_ID_PATTERN,
  paymentPayerView,
  paymentPublicView,
  paymentStatusPath,
} from '../../shared/payments/index';
import { errors } from '../../shared/platform/errors/index';
import { anyObject } from '../http/operations/shapes';
import type { Operation } from '../http/operations/types';
import { SIWX_HEADER } from './presenters';

const PAYMENT_ID =
  'eip155:84532:0x036cbd53842c5426634e7929541ec2318f3dcf7e:0x5b38da6a701c568545dcfcd03fcb875f56beddc4:0x' +
  '7a'.repeat(32);

const statusAnswer = Joi.object({
  success: Joi.boolean().valid(true).required(),
  data: Joi.object({
    payment_id: Joi.string().required(),
    status: Joi.string().valid('pending', 'settled', 'failed').required(),
    network: Joi.string().required(),
    asset: Joi.string().required(),
    token: Joi.string().required(),
    amount_base_units: Joi.string().required(),
    payer: Joi.string().required(),
    pay_to: Joi.string().required(),
    transaction: Joi.string().allow(null).required(),
    block_number: Joi.string().allow(null).required(),
    valid_before: Joi.string().required(),
    error: Joi.object({ code: Joi.string().required(), message: Joi.string().allow('').required() })
      .allow(null)
      .required()
      .description(
        "public view: the settlement code when the chain tells it, else `not_settled`; the payer's view: our code and message",
      ),
    settled_at: Joi.string().isoDate().allow(null).required(),
    settlement_status: Joi.string().description("payer's view only: our internal state"),
    purpose: Joi.string().description("payer's view only: `credit_purchase` or `tool_call`"),
    resource_url: Joi.string().description("payer's view only: the resource the payment paid for"),
    created_at: Joi.string().isoDate().description("payer's view only: when the payment was verified"),
  }).required(),
  extensions: anyObject.description(
    'public view: `sign-in-with-x`, the challenge the payer signs (SIGN-IN-WITH-X) for its own view',
  ),
});

const discoveryQuery = Joi.object({
  type: Joi.string().valid('http', 'mcp'),
  limit: Joi.number().integer().min(1).max(DISCOVERY_MAX_LIMIT).default(DISCOVERY_MAX_LIMIT),
  offset: Joi.number().integer().min(0).max(1_000_000).default(0),
});

const discoveryAnswer = Joi.object({
  x402Version: Joi.number().integer().required(),
  items: Joi.array()
    .items(
      Joi.object({
        resource: Joi.string().required(),
        type: Joi.string().required(),
        x402Version: Joi.number().integer().required(),
        accepts: Joi.array().items(anyObject).required(),
        lastUpdated: Joi.string().required(),
      }).unknown(),
    )
    .required(),
  pagination: Joi.object({
    limit: Joi.number().integer().required(),
    offset: Joi.number().integer().required(),
    total: Joi.number().integer().required(),
  }).required(),
});

const supportedAnswer = Joi.object({
  kinds: Joi.array()
    .items(
      Joi.object({
        x402Version: Joi.number().required(),
        scheme: Joi.string().required(),
        network: Joi.string().required(),
      }).unknown(),
    )
    .required(),
  extensions: Joi.array().items(Joi.string()).required(),
  signers: Joi.object().pattern(Joi.string(), Joi.array().items(Joi.string())).required(),
  receiptSigner: Joi.string(),
});

function unavailable(): never {
  throw errors.unavailable('payments_unavailable', 'x402 payments are not configured on this deployment');
}

/** The payment status oracle (on /api/external, gateway error shape). */
export function paymentStatusOperations(services: Services, publicBaseUrl: string): Operation[] {
  return [
    {
      id: 'getPaymentStatus',
      method: 'get',
      path: '/api/external/payments/{paymentId}',
      host: 'main',
      // Anyone holding the id (which anyone can build from a settled authorization on chain): the
      // view says only what the chain says about that authorization; the payer's sign-in-with-x
      // proof adds what the payment was for (docs/x402.md, "Payment status oracle").
      auth: [{ kind: 'none' }],
      tag: 'Payments',
      summary: 'What became of an x402 payment: pending, settled with its transaction, or failed with its reason',
      description:
        "The id is `<network>:<asset>:<payer>:<authorization nonce>` (lower-case), as every paid answer and 202 gives it. A payment whose transaction is broadcast but unconfirmed is `pending` with its `transaction`. Anyone gets what the chain shows; the payer's SIGN-IN-WITH-X proof for this URL (sign the answer's `extensions[\"sign-in-with-x\"]`) adds `purpose`, `resource_url`, `settlement_status`, `created_at` and the failure's own code.",
      request: {
        params: Joi.object({ paymentId: Joi.string().max(200).required() }),
        headers: Joi.object({
          'sign-in-with-x': Joi.string()
            .max(8192)
            .description("the payer's proof (base64 sign-in-with-x payload signed by the payer for this URL)"),
        }),
      },
      validation: 'handler',
      responses: { 200: { description: 'The payment', body: statusAnswer } },
      errorStatuses: [400, 401, 404, 503],
      errors: 'gateway',
      examples: [
        {
          name: 'settled',
          request: { params: { paymentId: PAYMENT_ID } },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                payment_id: PAYMENT_ID,
                status: 'settled',
                network: 'eip155:84532',
                asset: '0x036cbd53842c5426634e7929541ec2318f3dcf7e',
                token: 'USDC',
                amount_base_units: '5000000',
                payer: '0x5b38da6a701c568545dcfcd03fcb875f56beddc4',
                pay_to: '0x209693bc6afc0c5328ba36faf03c514ef312287c',
                transaction: `0x${'ab'.repeat(32)}`,
                block_number: '1234',
                valid_before: '1767225600',
                error: null,
                settled_at: '2026-01-01T00:00:02.000Z',
              },
            },
          },
        },
      ],
      handler: async (req, res) => {
        if (!services.payments) unavailable();
        const id = String(req.params.paymentId).toLowerCase();
        if (!PAYMENT_ID_PATTERN.test(id))
          throw errors.badRequest(
            'invalid_request',
            'payment_id must be <network>:<asset>:<payer>:<authorization nonce>, e.g. eip155:84532:0x…:0x…:0x<64 hex>',
          );
        const rec = await services.payments.byId(id);
        if (!rec) throw errors.notFound('payment_not_found', 'no x402 payment has this id');
        const url = `${publicBaseUrl}${paymentStatusPath(id)}`;
        if (await services.payments.provenPayer(rec, req.get(SIWX_HEADER), url)) {
          res.json({ success: true, data: paymentPayerView(rec) });
          return;
        }
        res.json({
          success: true,
          data: paymentPublicView(rec),
          extensions: services.payments.payerProofExtension(url),
        });
      },
    },
  ];
}

/** Bazaar discovery and the facilitator's /supported, at the main host's root. */
export function discoveryOperations(services: Services): Operation[] {
  return [
    {
      id: 'listDiscoveryResources',
      method: 'get',
      path: '/discovery/resources',
      host: 'main',
      auth: [{ kind: 'none' }],
      tag: 'Payments',
      summary: 'The Bazaar discovery list: every resource payable with x402 here, with its accepts',
      description:
        'Tool actions with an x402 price and the usual credit packs (`type: http`), and the same actions as tools of the MCP server (`type: mcp`: resource `{base}/mcp`, the bazaar `input` names the tool). `type` filters by protocol (absent: both), `limit` 1..100 (default 100), `offset` from 0.',
      request: { query: discoveryQuery },
      validation: 'handler',
      responses: { 200: { description: 'A page of resources', body: discoveryAnswer } },
      errorStatuses: [400, 503],
      errors: 'gateway',
      examples: [
        {
          name: 'first page',
          request: { query: { type: 'http', limit: 10 } },
          response: {
            status: 200,
            body: { x402Version: 2, items: [], pagination: { limit: 10, offset: 0, total: 0 } },
          },
        },
      ],
      handler: async (req, res) => {
        if (!services.discovery) unavailable();
        const { value, error } = discoveryQuery.validate(req.query, { abortEarly: false, convert: true });
        if (error)
          throw errors.badRequest('invalid_discovery_query', error.details.map((d) => d.message).join('; '), {
            details: { fields: error.details.map((d) => d.path.join('.')) },
          });
        res.json(await services.discovery.list(value as { type?: string; limit: number; offset: number }));
      },
    },
    {
      id: 'facilitatorSupported',
      method: 'get',
      path: '/supported',
      host: 'main',
      auth: [{ kind: 'none' }],
      tag: 'Payments',
      summary: "The in-process facilitator's supported kinds, extensions and signers (x402 v2 /supported)",
      responses: { 200: { description: 'What is supported', body: supportedAnswer } },
      errorStatuses: [503],
      errors: 'gateway',
      examples: [
        {
          name: 'testnet',
          request: {},
          response: {
            status: 200,
            body: {
              kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }],
              extensions: ['bazaar', 'payment-identifier', 'sign-in-with-x', 'offer-receipt'],
              signers: { 'eip155:*': ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8'] },
              receiptSigner: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
            },
          },
        },
      ],
      handler: (_req, res) => {
        if (!services.discovery) unavailable();
        res.json(services.discovery.supported());
      },
    },
  ];
}
