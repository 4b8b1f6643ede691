import type { RequestHandler } from 'express';
import type { Services } from '../../../shared/composition/root';
import { envelopeSchema, type SignedAction } from '../../../shared/identity/index';
import { fromJoi } from '../../../shared/platform/errors/index';

declare module 'express-serve-static-core' {
  interface Locals {
    wallet: string;
    /** With `readOnly`: the request-id claim, which the handler awaits before it answers. */
    claim?: Promise<void>;
  }
}

/**
 * Verifies the signed envelope for `action` over the body exactly as sent; the verified,
 * lower-cased wallet lands in res.locals.wallet. `readOnly` handlers (no side effect) get the
 * request-id claim in res.locals.claim and overlap their read with it.
 */
export function signed(services: Services, action: SignedAction, opts: { readOnly?: boolean } = {}): RequestHandler {
  return async (req, res, next) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const { value, error } = envelopeSchema.validate(
      {
        wallet_address: body.wallet_address,
        session_nonce: body.session_nonce,
        request_id: body.request_id,
        signature: body.signature,
      },
      { abortEarly: false },
    );
    if (error) return next(fromJoi(error, 'body'));
    const target = { kind: 'action' as const, action, pathParams: req.params as Record<string, string> };
    const { wallet, claim } = await services.signedRequests.authenticate(value, body, target);
    if (opts.readOnly) res.locals.claim = claim;
    else await claim;
    res.locals.wallet = wallet;
    next();
  };
}
