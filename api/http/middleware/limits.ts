import type { NextFunction, RequestHandler } from 'express';
import { type Limiter, requestClient } from '../../../shared/platform/limits/index';

type Only = (req: { method: string; path: string }) => boolean;

interface LimitOptions {
  /** What the refusal says is limited, plural ("invokes"); `<name>s` when not given. */
  what?: string;
  /** Narrows the limit to the requests it names (e.g. invokes in a router.use). */
  only?: Only;
}

/** An in-process limit answers at once; a store-backed one when its write and count are done. */
function enforce(limiter: Limiter, key: string, what: string, next: NextFunction): void {
  const pending = limiter.enforce(key, what);
  if (pending instanceof Promise) pending.then(() => next(), next);
  else next();
}

/** Per client address (`<name>:ip:<client>`), before any work. */
export function perClientLimit(limiter: Limiter, name: string, opts: LimitOptions = {}): RequestHandler {
  const what = `${opts.what ?? `${name}s`} from one address`;
  return (req, _res, next) => {
    if (opts.only && !opts.only(req)) return next();
    enforce(limiter, `${name}:ip:${requestClient(req)}`, what, next);
  };
}

/**
 * Per authenticated wallet (`<name>:wallet:<wallet>`), after bearer or signature checks set
 * res.locals.wallet, so nobody uses up another wallet's allowance.
 */
export function perWalletLimit(limiter: Limiter, name: string, opts: Pick<LimitOptions, 'what'> = {}): RequestHandler {
  const what = `${opts.what ?? `${name}s`} for one wallet`;
  return (_req, res, next) => enforce(limiter, `${name}:wallet:${res.locals.wallet}`, what, next);
}

/**
 * Per agent group (`<name>:group:<group id>`), after its `agt_` token resolved into
 * res.locals.group: a group's allowance is its own, as a wallet's is.
 */
export function perGroupLimit(limiter: Limiter, name: string, opts: Pick<LimitOptions, 'what'> = {}): RequestHandler {
  const what = `${opts.what ?? `${name}s`} for one agent group`;
  return (_req, res, next) => enforce(limiter, `${name}:group:${res.locals.group?.group._id}`, what, next);
}

export const isInvoke = (req: { method: string; path: string }) =>
  req.method === 'POST' && /\/invoke\/?$/.test(req.path);
