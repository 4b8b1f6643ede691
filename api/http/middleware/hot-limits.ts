import type { RequestHandler } from 'express';
import type { LocalRateLimiter } from '../../../shared/platform/limits/light-limit';
import { requestClient } from '../../../shared/platform/limits/rate-limit';

/** Per client address, before any work; `only` narrows it to the requests it names (e.g. invokes in a router.use). */
export function perClientLimit(limiter: LocalRateLimiter, what: string, only: (req: { method: string; path: string }) => boolean = () => true): RequestHandler {
  return (req, _res, next) => {
    if (only(req)) limiter.enforce(`${what}:ip:${requestClient(req)}`, `${what}s from one address`);
    next();
  };
}

/** Per authenticated wallet (after bearer or signature checks set res.locals.wallet). */
export function perWalletLimit(limiter: LocalRateLimiter, what: string): RequestHandler {
  return (_req, res, next) => {
    limiter.enforce(`${what}:wallet:${res.locals.wallet}`, `${what}s for one wallet`);
    next();
  };
}

export const isInvoke = (req: { method: string; path: string }) => req.method === 'POST' && /\/invoke\/?$/.test(req.path);
