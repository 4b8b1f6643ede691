import { type BalanceView, type LedgerHistory, orderIdOf } from '../../shared/credits/index';

/** The spec's Credit balance resource, as both balance endpoints answer it. */
export function balanceBody(view: BalanceView) {
  return {
    success: true,
    message: view.balance === 0 ? 'no credits available' : 'ok',
    data: {
      balance: view.balance,
      expiration: view.expiration ? view.expiration.toISOString() : null,
      expires_in_days: view.expires_in_days,
    },
  };
}

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : undefined);

export function historyBody(history: LedgerHistory) {
  return {
    success: true,
    message: 'ok',
    data: {
      grants: history.grants.map((g) => ({
        _id: g._id,
        user_id: g.user_id,
        amount_credits: g.amount_credits,
        amount_usd: g.amount_usd,
        remaining_credits: g.remaining_credits,
        credit_type: g.credit_type,
        ...(g.source_metadata ? { source_metadata: g.source_metadata } : {}),
        date_created: iso(g.date_created),
        ...(g.pooled_at ? { pooled_at: iso(g.pooled_at) } : {}),
        ...(g.expires_at ? { expires_at: iso(g.expires_at) } : {}),
      })),
      transactions: history.transactions.map((t) => {
        const orderId = t.transaction_type === 'purchase' ? orderIdOf(t.details) : undefined;
        return {
          _id: t._id,
          user_id: t.user_id,
          transaction_type: t.transaction_type,
          amount_credits: t.amount_credits,
          amount_usd: t.amount_usd,
          balance_after_credits: t.balance_after_credits,
          balance_after_usd: t.balance_after_usd,
          date_created: iso(t.date_created),
          ...(t.grant_id ? { grant_id: t.grant_id } : {}),
          ...(t.request_id ? { request_id: t.request_id } : {}),
          ...(orderId ? { order_id: orderId } : {}),
        };
      }),
    },
  };
}
