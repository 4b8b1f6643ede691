import type { RequestHandler } from 'express';
import type { BudgetBearerAuth } from '../../../shared/workspaces/index';

declare module 'express-serve-static-core' {
  interface Locals {
    budgetId?: string;
    workspaceId?: string;
  }
}

/** Authorization: Bearer base64("<api_key>:<budget_key>") → res.locals.budgetId. */
export function budgetBearer(auth: BudgetBearerAuth): RequestHandler {
  return async (req, res, next) => {
    const { budgetId, workspaceId } = await auth.authenticate(req.header('authorization'));
    res.locals.budgetId = budgetId;
    res.locals.workspaceId = workspaceId;
    next();
  };
}
