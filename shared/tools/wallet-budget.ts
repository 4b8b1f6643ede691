import { errors } from '../errors';
import type { ToolRepository } from './repository';
import { budgetRefusal, utcDayStart, type Budget } from './rules';

/**
 * The wallet's own tool budget (GUIDE §6: per-call and per-UTC-day credits) as an invoker
 * `authorize` gate, checked before anything is held: the signed invoke route and a wallet
 * session's tool nodes use this same gate. Over it: 402 `budget_exceeded`, nothing held.
 * `budgetOf` lets the API put its short cache in front of the store read.
 */
export function walletBudgetGate(repo: ToolRepository, wallet: string, budgetOf: (wallet: string) => Promise<Budget | null> = (w) => repo.getBudget(w)) {
  return async (price: { credits: number }): Promise<void> => {
    const budget = await budgetOf(wallet);
    if (!budget) return;
    const spent = budget.daily_credits === null ? 0 : await repo.spentSince(wallet, utcDayStart(new Date()));
    const refusal = budgetRefusal(budget, price.credits, spent);
    if (refusal) throw errors.paymentRequired('budget_exceeded', `this call (${price.credits} credits) is over the wallet's ${String(refusal.limit).replace('_', '-')} budget`, { details: refusal });
  };
}
