import { Router } from 'express';
import Joi from 'joi';
import { envelopeFields, walletAddress } from '../../shared/schemas/common';
import { signed } from '../middleware/signed';
import { validate } from '../middleware/validate';
import type { Services } from '../services';

const sessionBody = Joi.object({ wallet_address: walletAddress.required() });
const accessTokenBody = Joi.object({
  ...envelopeFields,
  label: Joi.string().max(100),
  expires_in_days: Joi.number().integer().min(1).max(365),
});

export function authRoutes(services: Services): Router {
  const router = Router();

  router.post('/auth/session', validate({ body: sessionBody }), async (_req, res) => {
    const session = await services.sessions.issue(res.locals.body.wallet_address);
    res.json({
      success: true,
      data: { session_nonce: session._id, wallet_address: session.wallet_address, expires_at: session.expires_at.toISOString() },
    });
  });

  // Ours (spec: "how tokens are issued: not shown"): a wallet mints its own bearer token by signing.
  router.post('/auth/access-token', validate({ body: accessTokenBody }), signed(services, 'access_token'), async (_req, res) => {
    const issued = await services.tokens.issue({
      wallet: res.locals.wallet,
      label: res.locals.body.label,
      expiresInDays: res.locals.body.expires_in_days ?? 30,
      createdBy: 'wallet_signature',
    });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ success: true, data: issued });
  });

  return router;
}
