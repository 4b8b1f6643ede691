import { Router } from 'express';
import { envelopeSchema } from '../../shared/schemas/common';
import { signed } from '../middleware/signed';
import { validate } from '../middleware/validate';
import { balanceBody } from '../presenters/credits';
import type { Services } from '../services';

export function creditRoutes(services: Services): Router {
  const router = Router();
  router.post('/credits/balance', validate({ body: envelopeSchema }), signed(services, 'balance'), async (_req, res) => {
    res.json(balanceBody(await services.ledger.balance(res.locals.wallet)));
  });
  return router;
}
