import { Router } from 'express';
import { signed } from '../middleware/signed';
import { balanceBody } from '../presenters/credits';
import type { Services } from '../services';

export function creditRoutes(services: Services): Router {
  const router = Router();
  // Read-only: the balance read overlaps the request-id claim; a replay still answers 401.
  router.post('/credits/balance', signed(services, 'balance', { readOnly: true }), async (_req, res) => {
    const [, view] = await Promise.all([res.locals.claim, services.ledger.balance(res.locals.wallet)]);
    res.json(balanceBody(view));
  });
  return router;
}
