import type { RequestHandler } from 'express';
import type { Services } from '../../../shared/composition/root';
import type { GroupAccess } from '../../../shared/workspaces/types';

declare module 'express-serve-static-core' {
  interface Locals {
    group?: GroupAccess;
  }
}

/**
 * Authorization: Bearer agt_… → res.locals.group (the group, its budget and workspace). 'reuse'
 * for reads that agents repeat often (polling a run): a token resolved seconds ago is reused.
 */
export function agentGroup(services: Services, mode: 'resolve' | 'reuse' = 'resolve'): RequestHandler {
  return async (req, res, next) => {
    res.locals.group = await services.webhookRuns.authenticate(req.header('authorization'), mode === 'reuse');
    next();
  };
}
