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
 * then `before`, then body, query and headers, then `middleware`, then the handler. Declared
 * headers are checked for every operation (also `validation: 'handler'` ones); others pass.
 */
export function mountOperations(operations: Operation[], base = ''): Router {
  const router = Router();
  for (const op of operations) {
    if (!op.path.startsWith(base)) throw new Error(`${op.id}: ${op.path} is not under ${base}`);
    const sub = expressPath(op.path.slice(base.length) || '/');
    const byMount = op.validation !== 'handler';
    const rest = {
      query: byMount ? op.request?.query : undefined,
      body: byMount ? (op.request?.body as never) : undefined,
      headers: op.request?.headers,
    };
    const checks = {
      params: byMount && op.request?.params ? validate({ params: op.request.params }) : undefined,
      rest: rest.query || rest.body || rest.headers ? validate(rest) : undefined,
    };
    const chain = [checks.params, ...(op.before ?? []), checks.rest, ...(op.middleware ?? []), op.handler].filter(
      (h) => h !== undefined,
    );
    const route = router.route(sub);
    if (op.anyMethod) route.all(...chain);
    else route[op.method](...chain);
    (route as unknown as Record<symbol, Operation>)[DECLARED] = op;
  }
  return router;
}
