import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import { walletAddress } from '../../shared/identity/index';
import { errors } from '../../shared/platform/errors/index';
import { perClientLimit } from '../http/middleware/limits';
import { singlePaymentMode } from '../http/middleware/single-payment-mode';
import { paymentHeader } from '../http/middleware/single-payment-mode';
import { anyObject, EXAMPLE, x402Receipt } from '../http/operations/shapes';
import type { Operation } from '../http/operations/types';
import { SIWX_HEADER } from './presenters';
import { purchaseCompletedBody, purchasePendingBody, purchaseStatusBody } from './presenters';

const SUPPORTED_CHAIN_IDS = [8453, 42161, 10, 137, 43114, 84532];

const purchaseBody = Joi.object({
  wallet_address: walletAddress.required(),
  credits: Joi.number().integer().min(500).max(10_000_000).multiple(500).required(),
  payment_method: Joi.string().valid('x402').insensitive().required(),
  chain_id: Joi.number()
    .integer()
    .valid(...SUPPORTED_CHAIN_IDS)
    .required(),
  token: Joi.string().valid('USDC', 'EURC').required(),
  payer_wallet_address: walletAddress,
  request_id: Joi.string().pattern(/^[A-Za-z0-9._:@-]{1,128}$/),
  transaction_hash: Joi.string().pattern(/^0x[0-9a-fA-F]{64}$/),
  email: Joi.string().email({ tlds: false }).max(254),
});

const completedAnswer = Joi.object({
  success: Joi.boolean().valid(true).required(),
  message: Joi.string().required(),
  data: Joi.object({
    status: Joi.string().valid('completed').required(),
    wallet_address: Joi.string(),
    credits: Joi.number().integer(),
    grant_id: Joi.string().allow(null),
    balance: Joi.number(),
    payment_id: Joi.string().required(),
  }).required(),
  x402: x402Receipt,
  extensions: anyObject.description(
    'a status answer to the settled payment sent again: `sign-in-with-x`, the challenge the payer signs for the full result',
  ),
});
const pendingAnswer = Joi.object({
  success: Joi.boolean().valid(false).required(),
  status: Joi.string().valid('settling').required(),
  message: Joi.string().required(),
  data: Joi.object({
    status: Joi.string().valid('settling').required(),
    payment_id: Joi.string().required(),
    wallet_address: Joi.string().required(),
    credits: Joi.number().integer().required(),
    transaction: Joi.string().allow(null),
    status_url: Joi.string(),
  }).required(),
});
/** The x402 challenge: x402Version, error, resource, accepts[] (docs/x402.md). */
export const challengeSchema = Joi.object({
  x402Version: Joi.number().integer().required(),
  error: Joi.string().required(),
  resource: Joi.object({
    url: Joi.string().required(),
    description: Joi.string().allow('').required(),
    mimeType: Joi.string().required(),
  }).unknown(),
  accepts: Joi.array()
    .items(
      Joi.object({
        scheme: Joi.string().required(),
        network: Joi.string().required(),
        amount: Joi.string().required(),
        asset: Joi.string().required(),
        payTo: Joi.string().required(),
        maxTimeoutSeconds: Joi.number().integer(),
        extra: anyObject,
      }).unknown(),
    )
    .required(),
}).unknown();

const body = {
  wallet_address: EXAMPLE.wallet,
  credits: 1000,
  payment_method: 'x402',
  chain_id: 84532,
  token: 'USDC',
  request_id: 'buy-0001',
};
const challengeExample = {
  x402Version: 2,
  error: 'X-PAYMENT header is required',
  resource: {
    url: 'https://agents.example.com/api/external/credits/purchase',
    description: '1000 credits',
    mimeType: 'application/json',
  },
  accepts: [
    {
      scheme: 'exact',
      network: 'eip155:84532',
      amount: '1000000',
      asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
      maxTimeoutSeconds: 300,
    },
  ],
};

export function creditPurchaseOperations(services: Services): Operation[] {
  return [
    {
      id: 'purchaseCredits',
      method: 'post',
      path: '/api/external/credits/purchase',
      host: 'main',
      auth: [{ kind: 'x402' }],
      tag: 'Credits',
      summary: 'Buy credits with an x402 payment',
      description:
        'Send the body without payment: 402 with the challenge. Retry the identical body with X-PAYMENT: 200 once settled and granted, 202 while the settlement runs on. The settled payment sent again answers the purchase\'s status and receipt only; with the payer\'s SIGN-IN-WITH-X proof beside it, the full result (docs/x402.md, "Payer proof").',
      request: {
        body: purchaseBody,
        headers: Joi.object({
          'x-payment': Joi.string().allow('').description('base64 x402 payment envelope'),
          'payment-signature': Joi.string().allow('').description('alias of X-PAYMENT'),
          'sign-in-with-x': Joi.string()
            .max(8192)
            .description(
              'a payer proof (base64 sign-in-with-x payload signed by the payer for this URL) beside the settled payment: its full result (balance, grant id) instead of the status only',
            ),
        }),
      },
      responses: {
        200: {
          description:
            "Credits granted; or, for a replay that proves no payer (request_id or transaction_hash alone, or the settled payment without the payer's sign-in-with-x proof), the purchase's status only: no balance, no grant id (the settled payment adds its receipt)",
          body: completedAnswer,
        },
        202: { description: 'Payment verified, settlement still running: nothing credited yet', body: pendingAnswer },
        402: { description: 'The x402 challenge (also base64 in PAYMENT-REQUIRED)', body: challengeSchema },
      },
      errorStatuses: [400, 401, 409, 429, 503],
      errors: 'gateway',
      examples: [
        { name: 'challenge', request: { body }, response: { status: 402, body: challengeExample } },
        {
          name: 'granted',
          request: { body, headers: { 'x-payment': 'eyJ4NDAyVmVyc2lvbiI6Mn0=' } },
          response: {
            status: 200,
            body: {
              success: true,
              message: 'credits purchased',
              data: {
                status: 'completed',
                wallet_address: EXAMPLE.wallet,
                credits: 1000,
                grant_id: 'grant_1',
                balance: 1000,
                payment_id: 'pay_1',
              },
              x402: { settled: true },
            },
          },
        },
      ],
      before: [perClientLimit(services.limits.purchasePerClient, 'credit purchase'), singlePaymentMode],
      handler: async (req, res) => {
        if (!services.purchases)
          throw errors.unavailable('payments_unavailable', 'x402 payments are not configured on this deployment');
        const body = res.locals.body;
        const result = await services.purchases.purchase(body, paymentHeader(req), req.get(SIWX_HEADER));
        if (result.kind === 'pending') {
          res.status(202).json(purchasePendingBody(result.record, body.wallet_address, body.credits));
          return;
        }
        if (result.kind === 'status') {
          const receipt = result.receipt ? await services.payments!.receipt(result.record) : undefined;
          const proof = result.receipt ? services.payments!.payerProofExtension(result.record.resource_url) : undefined;
          if (receipt) res.set(receipt.header);
          res.json(purchaseStatusBody(result.record, receipt?.block, proof));
          return;
        }
        const receipt = await services.payments!.receipt(result.record);
        res.set(receipt.header).json(purchaseCompletedBody(result, receipt.block));
      },
    },
  ];
}
