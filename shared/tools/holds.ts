import type { LedgerStore } from '../credits/ledger-store';
import type { ToolRepository } from './repository';

export type HealOutcome = 'captured' | 'released' | 'gone';

/**
 * Settles one stale hold from what was recorded about its call: a vendor call known to have
 * succeeded is captured (the caller got the result); unknown or failed is released, and the
 * call is marked failed so a retry of its request id does not wait on it forever.
 */
export async function healHold(ledger: LedgerStore, repo: ToolRepository, account: string, holdId: string): Promise<HealOutcome> {
  const call = await repo.getInvocationByHold(account, holdId);
  if (call?.status === 'succeeded') {
    const { transaction, replayed } = await ledger.capture({ account, holdId }).catch(async (err: { code?: string }) => {
      if (err.code === 'hold_not_open' || err.code === 'hold_not_found') return { transaction: null, replayed: true };
      throw err;
    });
    // Settled meanwhile (by the call itself, or a capture that met a released hold).
    return !transaction || replayed ? 'gone' : 'captured';
  }
  if (call?.status === 'pending') {
    const recorded = await repo.finishInvocation(account, call.request_id, {
      status: 'failed',
      error_code: 'vendor_timeout',
      error_status: 504,
      error_message: 'the call was interrupted before its outcome was recorded; nothing was charged',
    });
    // The call recorded its own outcome meanwhile (outcomes are insert-once): settle by that one.
    if (!recorded) return healHold(ledger, repo, account, holdId);
  }
  const { released } = await ledger.release({ account, holdId, reason: 'stale hold healed' });
  return released ? 'released' : 'gone';
}
