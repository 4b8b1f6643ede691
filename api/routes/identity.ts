import { ErrorRequestHandler, Router } from 'express';
import { errors, ValidationError } from '../../shared/errors';
import { createAgentWallet, WalletDerivationError } from '../../shared/identity/derive-wallet';
import { requestClient } from '../services/rate-limit';
import type { Services } from '../services';

/** The spec's identity errors are gateway 400s: a broken body is not the 422 `detail[]` of signed endpoints. */
export const identityBodyErrors: ErrorRequestHandler = (err, _req, _res, next) => {
  next(err instanceof ValidationError ? errors.badRequest('invalid_request', 'the request body is not valid JSON; send no body or a JSON object') : err);
};

export function identityRoutes(services: Services): Router {
  const router = Router();
  router.post('/agentaddress', async (req, res) => {
    const limiter = services.identityLimiter;
    // Counted in the store and failing closed: a store outage is a 503, never an unlimited minting.
    const decision = await limiter.hit(`agentaddress:${requestClient(req)}`);
    if (!decision.allowed) {
      throw errors.tooMany('rate_limited', `at most ${limiter.limit} agent address per ${limiter.windowSeconds} s from one address`, {
        extra: { rate_limit: { limit: limiter.limit, window_seconds: limiter.windowSeconds, retry_after_seconds: decision.retryAfterSeconds } },
        headers: { 'Retry-After': String(decision.retryAfterSeconds) },
      });
    }
    let wallet;
    try {
      wallet = createAgentWallet();
    } catch (err) {
      if (err instanceof WalletDerivationError) {
        throw errors.internal('wallet_derivation_failed', 'wallet derivation failed', { details: { reason: err.reason } });
      }
      throw err;
    }
    // The key is returned once and never stored or logged.
    res.setHeader('Cache-Control', 'no-store');
    res.json({ success: true, data: wallet });
  });
  return router;
}
