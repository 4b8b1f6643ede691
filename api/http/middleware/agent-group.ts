import type { RequestHandler } from 'express';
import type { Services } from '../../../shared/composition/root';
import type { GroupAccess } from '../../../shared/workspaces/types';

declare module 'express-serve-static-core' {
  interface Locals {
    group?: GroupAccess;
  }
}

/** Authorization: Bearer agt_… → res.locals.group (the group, its budget and workspace). */
export function agentGroup(services: Services): RequestHandler {
  return async (req, res, next) => {
    res.locals.group = await services.webhookRuns.authenticate(req.header('authorization'));
    next();
  };
}
