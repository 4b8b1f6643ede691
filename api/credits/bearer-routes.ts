import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import { bearer } from '../http/middleware/bearer';
import { EXAMPLE, ok } from '../http/operations/shapes';
import type { Operation } from '../http/operations/types';
import { balanceBody, historyBody } from './presenters';

const historyQuery = Joi.object({ limit: Joi.number().integer().min(1).max(500).default(50) });

/** The spec's Credit balance resource, as both balance endpoints answer it. */
export const balanceAnswer = ok(
  Joi.object({
    balance: Joi.number().required(),
    expiration: Joi.string().isoDate().allow(null).required(),
    expires_in_days: Joi.number().allow(null).required(),
  }),
  { message: Joi.string().required() },
);
export const balanceExample = {
  success: true,
  message: 'ok',
  data: { balance: 1500, expiration: '2026-12-31T00:00:00.000Z', expires_in_days: 30 },
};

const iso = Joi.string().isoDate();
const grant = Joi.object({
  _id: Joi.string().required(),
  user_id: Joi.string().required(),
  amount_credits: Joi.number().required(),
  amount_usd: Joi.number().required(),
  remaining_credits: Joi.number().required(),
  credit_type: Joi.string().required(),
  source_metadata: Joi.object().unknown(),
  date_created: iso.required(),
  pooled_at: iso,
  expires_at: iso,
});
const transaction = Joi.object({
  _id: Joi.string().required(),
  user_id: Joi.string().required(),
  transaction_type: Joi.string().required(),
  amount_credits: Joi.number().required(),
  amount_usd: Joi.number().required(),
  balance_after_credits: Joi.number().required(),
  balance_after_usd: Joi.number().required(),
  date_created: iso.required(),
  grant_id: Joi.string(),
  request_id: Joi.string(),
  order_id: Joi.string().description('a bearer purchase: the order id its answer named'),
});
const historyAnswer = ok(
  Joi.object({ grants: Joi.array().items(grant).required(), transactions: Joi.array().items(transaction).required() }),
  { message: Joi.string().required() },
);

const AUTH = { authorization: 'Bearer act_2c5e8f0a1b3d4c6e7f809a1b2c3d4e5f' };

/** {api_url}: /credits/balance, /credits/history, DELETE /auth/token (bearer access token). */
export function bearerCreditOperations(services: Services): Operation[] {
  const common = { host: 'bearer', auth: [{ kind: 'act' }], errors: 'gateway', before: [bearer(services)] } as const;
  return [
    {
      ...common,
      id: 'bearerBalance',
      method: 'get',
      path: '/credits/balance',
      tag: 'Credits',
      summary: "Credit balance of the token's wallet",
      responses: { 200: { description: 'The credit balance', body: balanceAnswer } },
      errorStatuses: [401],
      examples: [{ name: 'balance', request: { headers: AUTH }, response: { status: 200, body: balanceExample } }],
      handler: async (_req, res) => {
        res.json(balanceBody(await services.ledger.balance(res.locals.wallet)));
      },
    },
    {
      ...common,
      id: 'bearerHistory',
      method: 'get',
      path: '/credits/history',
      tag: 'Credits',
      summary: 'Grants and transactions, newest first',
      request: { query: historyQuery },
      responses: { 200: { description: 'Grants and transactions', body: historyAnswer } },
      errorStatuses: [401],
      examples: [
        {
          name: 'one purchase',
          request: { headers: AUTH, query: { limit: 10 } },
          response: {
            status: 200,
            body: {
              success: true,
              message: 'ok',
              data: {
                grants: [
                  {
                    _id: 'grant_1',
                    user_id: EXAMPLE.wallet,
                    amount_credits: 1000,
                    amount_usd: 1,
                    remaining_credits: 1000,
                    credit_type: 'purchase',
                    date_created: EXAMPLE.time,
                  },
                ],
                transactions: [
                  {
                    _id: 'tx_1',
                    user_id: EXAMPLE.wallet,
                    transaction_type: 'grant',
                    amount_credits: 1000,
                    amount_usd: 1,
                    balance_after_credits: 1000,
                    balance_after_usd: 1,
                    date_created: EXAMPLE.time,
                    grant_id: 'grant_1',
                  },
                ],
              },
            },
          },
        },
      ],
      handler: async (_req, res) => {
        res.json(historyBody(await services.ledger.history(res.locals.wallet, res.locals.query.limit)));
      },
    },
    {
      // Revokes the token presented, so a leaked token can be killed by whoever holds it.
      ...common,
      id: 'revokePresentedToken',
      method: 'delete',
      path: '/auth/token',
      tag: 'Identity and sessions',
      summary: 'Revoke the access token presented',
      responses: {
        200: {
          description: 'Revoked',
          body: ok(Joi.object({ token_id: Joi.string().required() }), { message: Joi.string().required() }),
        },
      },
      errorStatuses: [401],
      examples: [
        {
          name: 'revoked',
          request: { headers: AUTH },
          response: {
            status: 200,
            body: { success: true, message: 'token revoked', data: { token_id: 'tok_8d1f0c2b9a7e4d3c' } },
          },
        },
      ],
      handler: async (_req, res) => {
        await services.tokens.revoke(res.locals.tokenId!);
        res.json({ success: true, message: 'token revoked', data: { token_id: res.locals.tokenId } });
      },
    },
  ];
}
