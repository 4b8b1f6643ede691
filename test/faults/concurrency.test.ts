import { signToolInvoke } from '../../sdk/agent-client';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { ScheduleRepository } from '../../shared/schedules/repository';
import { ToolRepository } from '../../shared/tools/repository';
import { settlementWorkflowId } from '../../temporal/x402-settlement/ids';
import { TestAgent } from '../support/agent';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { makeSchedule, scheduleAccount, schedulesApi } from '../support/schedules';
import { startTestStack, type TestStack } from '../support/stack';
import {
  addWorkflow,
  sameWorkspaceGroup,
  setupGroup,
  templateWorkflow,
  trigger,
  waitForRun,
} from '../support/webhook-runs';

/**
 * Many callers at once against one thing that may happen once, black-box over HTTP on the real
 * API, store, Temporal workers and chain: exactly the right number of effects, the rest clear
 * errors. (N x402 authorizations over one payer's balance race in test/faults/x402-tool-calls,
 * which needs a chain of its own.)
 */
describe('fault: concurrency, black-box', () => {
  let stack: TestStack;
  let ledger: LedgerStore;
  const main = () => stack.server.mainUrl;

  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    ledger = new LedgerStore(stack.db.models);
    const tools = new ToolRepository(stack.db.models);
    await tools.createProduct({ slug: 'race', name: 'race' });
    await tools.addAction('race', {
      slug: 'echo',
      credits: 1,
      runner: { kind: 'builtin', handler: 'echo', timeout_ms: 1000 },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('50 signed credit invokes at once over a balance for 20: exactly 20 served and charged, 30 refused insufficient_credits, never below zero', async () => {
    const agent = new TestAgent(main());
    await agent.startSession();
    await ledger.grant({ wallet: agent.wallet, credits: 20, creditType: 'admin_grant' });
    const invoke = async (i: number) => {
      const parameters = { i };
      const env = await signToolInvoke({
        account: agent.account,
        sessionNonce: agent.sessionNonce,
        productSlug: 'race',
        actionSlug: 'echo',
        parameters,
      });
      return http('POST', `${main()}/api/external/tools/race/actions/echo/invoke`, { body: { ...env, parameters } });
    };
    const all = await Promise.all(Array.from({ length: 50 }, (_, i) => invoke(i)));
    expect(all.filter((r) => r.status === 200)).toHaveLength(20);
    const refused = all.filter((r) => r.status !== 200);
    expect(refused.map((r) => [r.status, r.body.code])).toEqual(Array(30).fill([402, 'insufficient_credits']));
    expect((await ledger.balance(agent.wallet)).balance).toBe(0);
    expect(
      await stack.db.models.creditTransactions
        .countDocuments({ user_id: agent.wallet, transaction_type: 'purchase' })
        .exec(),
    ).toBe(20);
  });

  it('one x402 purchase payment sent 10 times at once: settled once, credited once; every answer names the one payment', async () => {
    const url = `${main()}/api/external/credits/purchase`;
    const wallet = '0x' + 'a5'.repeat(20);
    const body = { wallet_address: wallet, credits: 500, payment_method: 'x402', chain_id: 84532, token: 'USDC' };
    const payer = new TestPayer();
    await payer.fund(5);
    const header = await payer.paymentHeader((await http('POST', url, { body })).body);

    const all = await Promise.all(
      Array.from({ length: 10 }, () => http('POST', url, { body, headers: { 'x-payment': header } })),
    );
    for (const r of all) expect([200, 202, 409]).toContain(r.status);
    const conflicts = all.filter((r) => r.status === 409);
    for (const r of conflicts) expect(r.body.error_code).toBe('payment_in_progress');
    const ids = new Set(all.filter((r) => r.status !== 409).map((r) => r.body.data.payment_id));
    expect(ids.size).toBe(1);

    const [paymentId] = ids;
    expect(await stack.temporal.client.workflow.getHandle(settlementWorkflowId(paymentId)).result()).toMatchObject({
      status: 'completed',
    });
    expect((await ledger.balance(wallet)).balance).toBe(500);
    expect(
      await stack.db.models.creditTransactions.countDocuments({ user_id: wallet, transaction_type: 'grant' }).exec(),
    ).toBe(1);
    expect(await payer.balance()).toBe(0n);
  });

  it('20 agents claiming one occurrence at once: exactly one wins; 20 identical advances apply once', async () => {
    const api = schedulesApi(main());
    const acct = await scheduleAccount(stack.db, 'race');
    const repo = new ScheduleRepository(stack.db.models);
    const s = await makeSchedule(stack.db, acct);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => api('POST', '/claim', acct.auth, { schedule_id: s._id })),
    );
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && r.body.error === 'occurrence_claimed')).toHaveLength(19);
    const c = winners[0].body.data;
    const advances = await Promise.all(
      Array.from({ length: 20 }, () =>
        api('POST', `/${s._id}/advance`, acct.auth, {
          due_at: c.due_at,
          claim_token: c.claim_token,
          outcome: 'success',
        }),
      ),
    );
    expect(advances.every((r) => r.status === 200)).toBe(true);
    expect(advances.filter((r) => r.body.data.already_advanced === false)).toHaveLength(1);
    expect((await repo.get(s._id))!.advance_count).toBe(1);
    expect(await repo.history(s._id)).toHaveLength(1);
  });

  it('one request_id triggered 20 times at once makes one run; a different body is 409; another group is another key', async () => {
    const g = await setupGroup(stack.db);
    const wf = await addWorkflow(stack.db, g, templateWorkflow('idem'));
    const body = { prompt: 'once', request_id: 'req-concurrent-1', request_metadata: { n: 1 } };
    const all = await Promise.all(Array.from({ length: 20 }, () => trigger(main(), g.token, wf, body)));
    const ids = new Set(all.map((r) => r.body.data?.run?.run_id));
    expect(ids.size).toBe(1);
    expect(all.filter((r) => r.status === 200 && r.body.message === 'run queued')).toHaveLength(1);
    expect(all.every((r) => [200, 202].includes(r.status))).toBe(true);
    expect(
      await stack.db.models.webhookRuns.countDocuments({ group_id: g.groupId, request_id: 'req-concurrent-1' }),
    ).toBe(1);

    const runId = [...ids][0];
    await waitForRun(main(), runId, g.token);
    const again = await trigger(main(), g.token, wf, body);
    expect(again.status).toBe(200);
    expect(again.body.data.run).toMatchObject({ run_id: runId, status: 'completed' });

    const conflict = await trigger(main(), g.token, wf, { ...body, prompt: 'another' });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({ success: false, error: 'request_id_conflict', message: expect.any(String) });

    const other = await sameWorkspaceGroup(g);
    await other.repo.addWorkflowToBudget(other.budgetId, wf);
    const elsewhere = await trigger(main(), other.token, wf, body);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.data.run.run_id).not.toBe(runId);
  });
});
