import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import { envelopeFields, walletAddress } from '../../shared/identity/index';
import { requestClient } from '../../shared/platform/limits/index';
import { perClientLimit } from '../http/middleware/limits';
import { signed } from '../http/middleware/signed';
import { EXAMPLE, ok } from '../http/operations/shapes';
import type { Operation } from '../http/operations/types';

const sessionBody = Joi.object({ wallet_address: walletAddress.required() });
const accessTokenBody = Joi.object({
  ...envelopeFields,
  label: Joi.string().max(100),
  expires_in_days: Joi.number().integer().min(1).max(365),
});

const tokenOwnBody = Joi.object({ ...envelopeFields });

const iso = Joi.string().isoDate();
const sessionAnswer = ok(
  Joi.object({
    session_nonce: Joi.string().required(),
    wallet_address: walletAddress.required(),
    expires_at: iso.required(),
  }),
);
const issuedAnswer = ok(
  Joi.object({
    access_token: Joi.string().required(),
    token_id: Joi.string().required(),
    wallet_address: walletAddress.required(),
    label: Joi.string().allow(null).required(),
    expires_at: iso.allow(null).required(),
  }),
);
const tokenView = Joi.object({
  token_id: Joi.string().required(),
  label: Joi.string().allow(null).required(),
  created_at: iso.required(),
  created_by: Joi.string().required(),
  expires_at: iso.allow(null).required(),
  revoked_at: iso.allow(null).required(),
  status: Joi.string().valid('active', 'expired', 'revoked').required(),
});
const listAnswer = ok(Joi.object({ tokens: Joi.array().items(tokenView).required() }));
const revokeAnswer = ok(Joi.object({ token_id: Joi.string().required(), already_revoked: Joi.boolean().required() }), {
  message: Joi.string().required(),
});

const TOKEN_ID = 'tok_8d1f0c2b9a7e4d3c';

export function authOperations(services: Services): Operation[] {
  const limits = services.limits;
  const common = { host: 'main', tag: 'Identity and sessions', errors: 'gateway' } as const;

  // The client is counted before the signature is checked; the wallet only once it proved it signed,
  // so nobody can use up another wallet's allowance.
  const tokenPerClient = perClientLimit(limits.accessTokenPerClient, 'token', { what: 'access tokens' });

  return [
    {
      ...common,
      id: 'openSession',
      method: 'post',
      path: '/api/external/auth/session',
      auth: [{ kind: 'none' }],
      summary: 'Open a session: the nonce signed requests carry as session_nonce',
      request: { body: sessionBody },
      responses: { 200: { description: 'A session nonce for the wallet', body: sessionAnswer } },
      errorStatuses: [429, 503],
      examples: [
        {
          name: 'session',
          request: { body: { wallet_address: EXAMPLE.wallet } },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                session_nonce: EXAMPLE.envelope.session_nonce,
                wallet_address: EXAMPLE.wallet,
                expires_at: EXAMPLE.time,
              },
            },
          },
        },
      ],
      // Per client first (the real brake); per wallet too, so one wallet's sessions cannot pile up from many addresses.
      handler: async (req, res) => {
        await limits.sessionPerClient.enforce(`session:ip:${requestClient(req)}`, 'sessions from one address');
        await limits.sessionPerWallet.enforce(
          `session:wallet:${res.locals.body.wallet_address.toLowerCase()}`,
          'sessions for one wallet',
        );
        const session = await services.signedRequests.issue(res.locals.body.wallet_address);
        res.json({
          success: true,
          data: {
            session_nonce: session._id,
            wallet_address: session.wallet_address,
            expires_at: session.expires_at.toISOString(),
          },
        });
      },
    },
    {
      // Ours (spec: "how tokens are issued: not shown"): a wallet mints its own bearer token by signing.
      ...common,
      id: 'issueAccessToken',
      method: 'post',
      path: '/api/external/auth/access-token',
      auth: [{ kind: 'signed', action: 'access_token', productLine: '-' }],
      summary: 'Mint an access token (act_…) for the bearer host by signing',
      request: { body: accessTokenBody },
      responses: { 200: { description: 'The token, shown once', body: issuedAnswer } },
      errorStatuses: [401, 429],
      examples: [
        {
          name: 'issued',
          request: { body: { ...EXAMPLE.envelope, label: 'laptop', expires_in_days: 30 } },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                access_token: 'act_2c5e8f0a1b3d4c6e7f809a1b2c3d4e5f',
                token_id: TOKEN_ID,
                wallet_address: EXAMPLE.wallet,
                label: 'laptop',
                expires_at: EXAMPLE.time,
              },
            },
          },
        },
      ],
      before: [tokenPerClient],
      middleware: [signed(services, 'access_token')],
      handler: async (_req, res) => {
        await limits.accessTokenPerWallet.enforce(`token:wallet:${res.locals.wallet}`, 'access tokens for one wallet');
        const issued = await services.tokens.issue({
          wallet: res.locals.wallet,
          label: res.locals.body.label,
          expiresInDays: res.locals.body.expires_in_days ?? 30,
          createdBy: 'wallet_signature',
        });
        res.setHeader('Cache-Control', 'no-store');
        res.json({ success: true, data: issued });
      },
    },
    {
      // Ours, beyond the spec: a wallet lists and revokes its own tokens by signing, without holding one.
      ...common,
      id: 'listAccessTokens',
      method: 'post',
      path: '/api/external/auth/access-tokens/list',
      auth: [{ kind: 'signed', action: 'access_token_list', productLine: '-' }],
      summary: "List the wallet's own access tokens",
      request: { body: tokenOwnBody },
      responses: { 200: { description: 'The tokens (never their secrets)', body: listAnswer } },
      errorStatuses: [401],
      examples: [
        {
          name: 'one token',
          request: { body: EXAMPLE.envelope },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                tokens: [
                  {
                    token_id: TOKEN_ID,
                    label: 'laptop',
                    created_at: EXAMPLE.time,
                    created_by: 'wallet_signature',
                    expires_at: null,
                    revoked_at: null,
                    status: 'active',
                  },
                ],
              },
            },
          },
        },
      ],
      middleware: [signed(services, 'access_token_list', { readOnly: true })],
      handler: async (_req, res) => {
        const [, tokens] = await Promise.all([res.locals.claim, services.tokens.listOwn(res.locals.wallet)]);
        res.setHeader('Cache-Control', 'no-store');
        res.json({ success: true, data: { tokens } });
      },
    },
    {
      ...common,
      id: 'revokeOwnAccessToken',
      method: 'post',
      path: '/api/external/auth/access-tokens/{tokenId}/revoke',
      auth: [{ kind: 'signed', action: 'access_token_revoke', productLine: '{tokenId}' }],
      summary: "Revoke one of the wallet's own access tokens",
      request: { params: Joi.object({ tokenId: Joi.string().required() }), body: tokenOwnBody },
      responses: { 200: { description: 'Revoked (or already revoked)', body: revokeAnswer } },
      errorStatuses: [401, 404],
      examples: [
        {
          name: 'revoked',
          request: { params: { tokenId: TOKEN_ID }, body: EXAMPLE.envelope },
          response: {
            status: 200,
            body: { success: true, message: 'token revoked', data: { token_id: TOKEN_ID, already_revoked: false } },
          },
        },
      ],
      middleware: [signed(services, 'access_token_revoke')],
      handler: async (req, res) => {
        const revoked = await services.tokens.revokeOwn(res.locals.wallet, String(req.params.tokenId));
        res.json({
          success: true,
          message: revoked.already_revoked ? 'token was already revoked' : 'token revoked',
          data: revoked,
        });
      },
    },
  ];
}
