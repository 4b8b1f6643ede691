import type { RequestHandler } from 'express';
import type { Services } from '../../../shared/composition/root';
import type { GroupAccess } from '../../../shared/workspaces/index';

declare module 'express-serve-static-core' {
  interface Locals {
    group?: GroupAccess;
  }
}

/**
 * Authorization: Bearer agt_… → res.locals.group (the group, its budget and workspace). 'reuse'
 * for what agents repeat often (triggering and polling runs): a token resolved seconds ago is
 * reused (WebhookRunService.authenticate).
 */
export function agentGroup(services: Services, mode: 'resolve' | 'reuse' = 'resolve'): RequestHandler {
  return async (req, res, next) => {
    res.locals.group = await services.webhookRuns.authenticate(req.header('authorization'), mode === 'reuse');
    next();
  };
}
