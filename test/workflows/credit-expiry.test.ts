import { LedgerStore } from '../../shared/credits/ledger-store';
import { ensureExpirySchedule, expiryScheduleId, runExpirySweep } from '../../temporal/credit-expiry/client';
import { expirySweepWorkflowId } from '../../temporal/credit-expiry/ids';
import { replayHistory } from '../support/histories';
import { startTestStack, TestStack } from '../support/stack';

describe('credit expiry sweep on the real Temporal server and store', () => {
  let stack: TestStack;
  let ledger: LedgerStore;
  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    ledger = new LedgerStore(stack.db.models);
  });
  afterAll(async () => {
    await stack.temporal.client.schedule
      .getHandle(expiryScheduleId(stack.temporal))
      .delete()
      .catch(() => undefined);
    await stack.stop();
  });

  it('writes one expiration per lapsed grant with credits left, and is idempotent', async () => {
    const a = '0x' + 'a1'.repeat(20);
    const b = '0x' + 'b2'.repeat(20);
    const soon = new Date(Date.now() + 300);
    await ledger.grant({ wallet: a, grantId: 'a-old', credits: 30, creditType: 'admin_grant', expiresAt: soon });
    await ledger.grant({ wallet: a, grantId: 'a-keep', credits: 7, creditType: 'admin_grant' });
    await ledger.grant({ wallet: b, grantId: 'b-old', credits: 10, creditType: 'referral_signup', expiresAt: soon });
    // Spent while the grant was live, whatever the machine's load made the clock do meanwhile.
    await ledger.spend({ wallet: b, requestId: 'all', credits: 10, now: new Date(soon.getTime() - 60_000) });
    await new Promise((r) => setTimeout(r, Math.max(0, soon.getTime() - Date.now()) + 100));

    const tag = `t1-${Date.now()}`;
    const first = await runExpirySweep(stack.temporal, tag);
    expect(first.expirations).toBe(1);
    // The committed history (recorded when missing or with UPDATE_HISTORIES=1) and this one replay on today's code.
    await replayHistory(
      'credit-expiry',
      await stack.temporal.client.workflow.getHandle(expirySweepWorkflowId(tag)).fetchHistory(),
    );
    expect(first.wallets).toBe(2);
    const second = await runExpirySweep(stack.temporal, `t2-${Date.now()}`);
    expect(second.expirations).toBe(0);

    const { transactions } = await ledger.history(a, 10);
    expect(transactions[0]).toMatchObject({
      transaction_type: 'expiration',
      amount_credits: -30,
      balance_after_credits: 7,
      grant_id: 'a-old',
    });
    expect((await ledger.balance(a)).balance).toBe(7);
    expect((await ledger.history(b, 10)).transactions.map((t) => t.transaction_type)).toEqual(['purchase', 'grant']);
  });

  it('registers the recurring schedule once, however many workers start', async () => {
    await ensureExpirySchedule(stack.temporal);
    await ensureExpirySchedule(stack.temporal);
    const desc = await stack.temporal.client.schedule.getHandle(expiryScheduleId(stack.temporal)).describe();
    expect(desc.action.type).toBe('startWorkflow');
    expect(desc.spec.intervals?.[0].every).toBe(300_000);
  });
});
