import type { RequestHandler } from 'express';
import { envelopeSchema } from '../../shared/schemas/common';
import { fromJoi } from '../../shared/errors';
import type { SignedAction } from '../../shared/signing';
import type { Services } from '../services';

declare module 'express-serve-static-core' {
  interface Locals {
    wallet: string;
  }
}

/**
 * Verifies the signed envelope for `action` over the body exactly as sent; the verified,
 * lower-cased wallet lands in res.locals.wallet.
 */
export function signed(services: Services, action: SignedAction): RequestHandler {
  return async (req, res, next) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const { value, error } = envelopeSchema.validate(
      { wallet_address: body.wallet_address, session_nonce: body.session_nonce, request_id: body.request_id, signature: body.signature },
      { abortEarly: false },
    );
    if (error) return next(fromJoi(error, 'body'));
    res.locals.wallet = await services.sessions.verify(value, body, { kind: 'action', action, pathParams: req.params as Record<string, string> });
    next();
  };
}
