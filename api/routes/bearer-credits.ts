import { Router } from 'express';
import Joi from 'joi';
import { bearer } from '../middleware/bearer';
import { validate } from '../middleware/validate';
import { balanceBody, historyBody } from '../presenters/credits';
import type { Services } from '../services';

const historyQuery = Joi.object({ limit: Joi.number().integer().min(1).max(500).default(50) });

export function bearerCreditRoutes(services: Services): Router {
  const router = Router();
  router.get('/credits/balance', bearer(services), async (_req, res) => {
    res.json(balanceBody(await services.ledger.balance(res.locals.wallet)));
  });
  router.get('/credits/history', bearer(services), validate({ query: historyQuery }), async (_req, res) => {
    res.json(historyBody(await services.ledger.history(res.locals.wallet, res.locals.query.limit)));
  });
  // Revokes the token presented, so a leaked token can be killed by whoever holds it.
  router.delete('/auth/token', bearer(services), async (_req, res) => {
    await services.tokens.revoke(res.locals.tokenId!);
    res.json({ success: true, message: 'token revoked', data: { token_id: res.locals.tokenId } });
  });
  return router;
}
