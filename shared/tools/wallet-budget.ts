import { AppError, errors } from '../platform/errors/index';
import type { InvokeInput, InvokeOutput, ToolInvoker } from './invoke';
import { budgetRefusal, type WalletToolBudget } from './rules';

type BudgetLookup = (wallet: string) => Promise<WalletToolBudget | null>;

/**
 * A paid call from the wallet's own credits within its tool budget (docs/tools.md, "Budgets"), checked before
 * anything is held: the per-call cap, then the daily cap through an insert-decided reservation
 * (repository.reserveWalletSpend), exact under concurrency. A call refused, failed or answered
 * uncharged frees its reservation, so it counts nothing against the day. The signed invoke
 * route and a wallet session's tool nodes both call this; the budget comes from the repository's
 * cache (ToolRepository.getBudget). Over the budget: 402 `budget_exceeded`, nothing held.
 */
export async function invokeWithinWalletBudget(
  invoker: ToolInvoker,
  input: Omit<InvokeInput, 'authorize'>,
  budgetOf: BudgetLookup = (w) => invoker.repository.getBudget(w),
): Promise<InvokeOutput> {
  const repo = invoker.repository;
  const wallet = input.account;
  let reserved = false;
  const authorize = async (price: { credits: number }): Promise<void> => {
    const budget = await budgetOf(wallet);
    if (!budget) return;
    const refuse = (refusal: Record<string, unknown>) =>
      errors.paymentRequired(
        'budget_exceeded',
        `this call (${price.credits} credits) is over the wallet's ${String(refusal.limit).replace('_', '-')} budget`,
        { details: refusal },
      );
    const perCall = budgetRefusal({ ...budget, daily_credits: null }, price.credits, 0);
    if (perCall) throw refuse(perCall);
    if (budget.daily_credits === null) return;
    const r = await repo.reserveWalletSpend(wallet, input.requestId, price.credits);
    // Asked again for a new try of the same call (invoke's nextTry): the reservation is the same one.
    reserved = reserved || r.inserted;
    const refusal = budgetRefusal(budget, price.credits, r.committed - price.credits);
    if (refusal) {
      if (r.inserted) await repo.releaseWalletSpend(wallet, input.requestId);
      reserved = false;
      throw refuse(refusal);
    }
  };
  try {
    const out = await invoker.invoke({ ...input, authorize });
    if (reserved && out.credits_charged === 0) await repo.releaseWalletSpend(wallet, input.requestId);
    return out;
  } catch (err) {
    if (reserved && !(await spentByAnotherCopy(err)))
      await repo.releaseWalletSpend(wallet, input.requestId).catch(() => undefined);
    throw err;
  }

  /**
   * Refused because another call of this request id took the hold (a copy sent twice): while that
   * call is open or charged, the reservation this copy inserted is the day's record of its spend.
   */
  async function spentByAnotherCopy(err: unknown): Promise<boolean> {
    if (!(err instanceof AppError && err.code === 'invocation_in_progress')) return false;
    const s = await invoker.ledger.holdState(wallet, input.requestId).catch(() => null);
    return s !== null && (s.state === 'open' || s.state === 'captured');
  }
}
