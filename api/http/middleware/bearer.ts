import type { RequestHandler } from 'express';
import type { Services } from '../../../shared/composition/root';

declare module 'express-serve-static-core' {
  interface Locals {
    tokenId?: string;
  }
}

/** Authorization: Bearer <access token> → res.locals.wallet. */
export function bearer(services: Services): RequestHandler {
  return async (req, res, next) => {
    const { wallet, tokenId } = await services.tokens.authenticate(req.header('authorization'));
    res.locals.wallet = wallet;
    res.locals.tokenId = tokenId;
    next();
  };
}
