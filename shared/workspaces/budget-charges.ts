import { insertOnce } from '../platform/db/index';
import type { BudgetChargeDoc } from './models/budget-charge';
import type { WorkspacesModels as Models } from './models/index';
import type { Budget } from './types';

export type BudgetRefusal = { limit: 'daily' | 'total'; allowance: number; committed: number; credits: number };

function utcDayStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/**
 * What a budget has committed to paid tool calls (budget_charges). `reserve` inserts the call's
 * row first and then sums the budget's rows, so two runs racing for the last credits both see
 * each other and neither overshoots (at worst both are refused); a refused or failed call's row
 * is deleted. The row of a call stays once it is charged: the sums are the budget's spend.
 */
export class BudgetChargeRepository {
  constructor(private readonly models: Pick<Models, 'budgetCharges'>) {}

  async reserve(
    budget: Pick<Budget, '_id' | 'daily_credits' | 'total_credits'>,
    chargeId: string,
    credits: number,
    now = new Date(),
  ): Promise<{ ok: true; inserted: boolean } | { ok: false; refusal: BudgetRefusal }> {
    const inserted = await insertOnce(this.models.budgetCharges, {
      _id: chargeId,
      budget_id: budget._id,
      credits,
      created_at: now,
    } satisfies BudgetChargeDoc);
    // A retry of the same call finds its own row: it was allowed then (and is not this caller's to release).
    if (!inserted) return { ok: true, inserted: false };
    const check = async (
      limit: 'daily' | 'total',
      allowance: number | null,
      since: Date | null,
    ): Promise<BudgetRefusal | null> => {
      if (allowance === null) return null;
      const rows = await this.models.budgetCharges
        .find({ budget_id: budget._id, ...(since ? { created_at: { $gte: since } } : {}) }, { credits: 1 })
        .lean<Array<{ credits: number }>>()
        .exec();
      const committed = rows.reduce((sum, r) => sum + r.credits, 0);
      return committed > allowance ? { limit, allowance, committed: committed - credits, credits } : null;
    };
    const refusal =
      (await check('daily', budget.daily_credits, utcDayStart(now))) ??
      (await check('total', budget.total_credits, null));
    if (!refusal) return { ok: true, inserted: true };
    await this.release(chargeId);
    return { ok: false, refusal };
  }

  /** A call charged less than it reserved (a model node's actual usage): its row counts what was charged. Only that call writes its row. */
  async settle(chargeId: string, credits: number): Promise<void> {
    await this.models.budgetCharges.updateOne({ _id: chargeId }, { $set: { credits } });
  }

  async release(chargeId: string): Promise<void> {
    await this.models.budgetCharges.deleteOne({ _id: chargeId });
  }

  /** The charges of these budgets since `since`, at most `limit` (the console's spend per day). */
  chargesSince(
    budgetIds: readonly string[],
    since: Date,
    limit: number,
  ): Promise<Array<{ budget_id: string; credits: number; created_at: Date }>> {
    if (budgetIds.length === 0) return Promise.resolve([]);
    return this.models.budgetCharges
      .find(
        { budget_id: { $in: [...budgetIds] }, created_at: { $gte: since } },
        { _id: 0, budget_id: 1, credits: 1, created_at: 1 },
      )
      .limit(limit)
      .lean<Array<{ budget_id: string; credits: number; created_at: Date }>>()
      .exec();
  }

  /** Credits committed today (UTC) and in total. */
  async spent(budgetId: string, now = new Date()): Promise<{ today: number; total: number }> {
    const rows = await this.models.budgetCharges
      .find({ budget_id: budgetId }, { credits: 1, created_at: 1 })
      .lean<Array<{ credits: number; created_at: Date }>>()
      .exec();
    const day = utcDayStart(now).getTime();
    return {
      today: rows.filter((r) => r.created_at.getTime() >= day).reduce((s, r) => s + r.credits, 0),
      total: rows.reduce((s, r) => s + r.credits, 0),
    };
  }
}
