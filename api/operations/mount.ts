import { Router } from 'express';
import { validate } from '../middleware/validate';
import type { Operation } from './types';

/** Marks the express routes made from declarations, so a test can find any route mounted otherwise. */
export const DECLARED = Symbol('declared operation');

/** /jobs/{jobId}/reserve → /jobs/:jobId/reserve */
export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

/**
 * Mounts declarations on a router that will itself be mounted at `base`: params are checked,
 * then `before`, then query and body, then `middleware`, then the handler.
 */
export function mountOperations(operations: Operation[], base = ''): Router {
  const router = Router();
  for (const op of operations) {
    if (!op.path.startsWith(base)) throw new Error(`${op.id}: ${op.path} is not under ${base}`);
    const sub = expressPath(op.path.slice(base.length) || '/');
    const checks = op.validation === 'handler' ? { params: undefined, rest: undefined } : {
      params: op.request?.params && validate({ params: op.request.params }),
      rest: (op.request?.query || op.request?.body) && validate({ query: op.request.query, body: op.request.body as never }),
    };
    const chain = [checks.params, ...(op.before ?? []), checks.rest, ...(op.middleware ?? []), op.handler].filter((h) => h !== undefined);
    const route = router.route(sub);
    if (op.anyMethod) route.all(...chain);
    else route[op.method](...chain);
    (route as unknown as Record<symbol, Operation>)[DECLARED] = op;
  }
  return router;
}
