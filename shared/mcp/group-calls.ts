/**
 * A catalog tool called directly by an agent group (`Bearer agt_…`): paid from its workspace's
 * credits (`ws:<id>`) under the group's budget, through the same invoker and budget rows as a
 * run's tool node: the budget row is reserved before the hold, the hold is the claim (charged at
 * most once per request id), and a refused or failed call gives both back.
 */
import { AppError } from '../platform/errors/index';
import type { InvokeOutput, ToolInvoker } from '../tools/index';
import { type BudgetChargeRepository, type GroupAccess, workspaceAccount } from '../workspaces/index';

export interface GroupCall {
  productId: string;
  actionSlug: string;
  parameters: Record<string, unknown>;
  /** Unique per group: `mcp:<group id>:<idempotency key or a fresh id>`. */
  requestId: string;
  meta?: Record<string, unknown>;
}

export async function invokeWithinGroupBudget(
  invoker: ToolInvoker,
  charges: BudgetChargeRepository,
  access: GroupAccess,
  call: GroupCall,
): Promise<InvokeOutput> {
  // A budget lists the workflows its groups may run; spending on any catalog tool is a wider grant
  // an operator makes on purpose, so existing tokens gain nothing by default.
  if (!access.budget.catalog_tools) {
    throw new AppError(
      403,
      'catalog_tools_not_on_budget',
      "this agent group's budget pays only for its workflows; call catalog tools with a wallet token (Bearer act_…) or pay with x402, or ask the operator for a budget with catalog tools",
    );
  }
  const account = workspaceAccount(access.workspace._id);
  // One budget row per call; the ledger's hold id is the same string, so both are per request.
  const chargeId = call.requestId;
  let reserved = false;
  try {
    const out = await invoker.invoke({
      account,
      product: { id: call.productId },
      actionSlug: call.actionSlug,
      parameters: call.parameters,
      requestId: call.requestId,
      authorize: async (price) => {
        const r = await charges.reserve(access.budget, chargeId, price.credits);
        if (!r.ok) {
          throw new AppError(
            402,
            'budget_exceeded',
            `this call (${price.credits} credits) is over the budget's ${r.refusal.limit} allowance of ${r.refusal.allowance} (committed: ${r.refusal.committed})`,
            { details: r.refusal },
          );
        }
        // A row found (not inserted) is an earlier copy's of this request: never this caller's to release.
        reserved = r.inserted;
      },
      meta: { ...call.meta, group_id: access.group._id, budget_id: access.budget._id },
    });
    return out;
  } catch (err) {
    if (reserved && !(await heldByAnotherCopy(err))) await charges.release(chargeId).catch(() => undefined);
    throw err;
  }

  /** Refused because another copy of this request holds or charged the hold: its row stays. */
  async function heldByAnotherCopy(err: unknown): Promise<boolean> {
    if (!(err instanceof AppError && err.code === 'invocation_in_progress')) return false;
    const s = await invoker.ledger.holdState(account, call.requestId).catch(() => null);
    return s !== null && (s.state === 'open' || s.state === 'captured');
  }
}
