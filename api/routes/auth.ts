import { RequestHandler, Router } from 'express';
import Joi from 'joi';
import { envelopeFields, walletAddress } from '../../shared/schemas/common';
import { signed } from '../middleware/signed';
import { validate } from '../middleware/validate';
import { requestClient } from '../services/rate-limit';
import type { Services } from '../services';

const sessionBody = Joi.object({ wallet_address: walletAddress.required() });
const accessTokenBody = Joi.object({
  ...envelopeFields,
  label: Joi.string().max(100),
  expires_in_days: Joi.number().integer().min(1).max(365),
});

const tokenOwnBody = Joi.object({ ...envelopeFields });


export function authRoutes(services: Services): Router {
  const router = Router();
  const limits = services.authLimits;

  // Per client first (the real brake); per wallet too, so one wallet's sessions cannot pile up from many addresses.
  router.post('/auth/session', validate({ body: sessionBody }), async (req, res) => {
    await limits.sessionPerClient.enforce(`session:ip:${requestClient(req)}`, 'sessions from one address');
    await limits.sessionPerWallet.enforce(`session:wallet:${res.locals.body.wallet_address.toLowerCase()}`, 'sessions for one wallet');
    const session = await services.sessions.issue(res.locals.body.wallet_address);
    res.json({
      success: true,
      data: { session_nonce: session._id, wallet_address: session.wallet_address, expires_at: session.expires_at.toISOString() },
    });
  });

  // Ours (spec: "how tokens are issued: not shown"): a wallet mints its own bearer token by signing.
  // The client is counted before the signature is checked; the wallet only once it proved it signed,
  // so nobody can use up another wallet's allowance.
  const tokenPerClient: RequestHandler = (req, _res, next) =>
    limits.accessTokenPerClient.enforce(`token:ip:${requestClient(req)}`, 'access tokens from one address').then(() => next(), next);
  router.post('/auth/access-token', tokenPerClient, validate({ body: accessTokenBody }), signed(services, 'access_token'), async (_req, res) => {
    await limits.accessTokenPerWallet.enforce(`token:wallet:${res.locals.wallet}`, 'access tokens for one wallet');
    const issued = await services.tokens.issue({
      wallet: res.locals.wallet,
      label: res.locals.body.label,
      expiresInDays: res.locals.body.expires_in_days ?? 30,
      createdBy: 'wallet_signature',
    });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ success: true, data: issued });
  });

  // Ours (issue 18): a wallet lists and revokes its own tokens by signing, without holding one.
  router.post('/auth/access-tokens/list', validate({ body: tokenOwnBody }), signed(services, 'access_token_list', { readOnly: true }), async (_req, res) => {
    const [, tokens] = await Promise.all([res.locals.claim, services.tokens.listOwn(res.locals.wallet)]);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ success: true, data: { tokens } });
  });
  router.post('/auth/access-tokens/:tokenId/revoke', validate({ body: tokenOwnBody }), signed(services, 'access_token_revoke'), async (req, res) => {
    const revoked = await services.tokens.revokeOwn(res.locals.wallet, String(req.params.tokenId));
    res.json({ success: true, message: revoked.already_revoked ? 'token was already revoked' : 'token revoked', data: revoked });
  });

  return router;
}
