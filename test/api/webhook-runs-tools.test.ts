import { LedgerStore } from '../../shared/credits/ledger-store';
import { callRecord } from '../../shared/tools/holds';
import { ToolRepository } from '../../shared/tools/repository';
import { BudgetChargeRepository } from '../../shared/workspaces/budget-charges';
import { http } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';
import { startScriptedVendor, type VendorBehaviour } from '../support/vendor';
import { addWorkflow, type GroupSetup, setupGroup, trigger, waitForRun } from '../support/webhook-runs';

describe('tool nodes: paid from the workspace account, gated by the budget, released on cancel', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let ledger: LedgerStore;
  let g: GroupSetup;
  let wf: string;
  const account = () => `ws:${g.workspaceId}`;
  const countWords: VendorBehaviour = (call) => ({
    status: 200,
    body: {
      words: String((call.body as any)?.parameters?.text ?? '').split(' ').length,
      key: (call.body as any)?.parameters?.key,
    },
  });

  /** A fresh workspace without budget limits, funded with `credits`, and a one-node workflow calling words/count. */
  async function fundedCountWorkflow(name: string, credits: number) {
    const group = await setupGroup(stack.db, { daily: null, total: null });
    await ledger.grant({ wallet: `ws:${group.workspaceId}`, credits, creditType: 'admin_grant' });
    await group.repo.setCredential({ workspaceId: group.workspaceId, name: 'VENDOR_KEY', value: 'x' });
    const workflowId = await addWorkflow(stack.db, group, {
      name,
      credentials: ['VENDOR_KEY'],
      nodes: [
        {
          id: 'count',
          type: 'tool',
          product: 'words',
          action: 'count',
          parameters: { text: '{{prompt}}', key: '{{credentials.VENDOR_KEY}}' },
        },
      ],
      edges: [],
    });
    return { group, account: `ws:${group.workspaceId}`, workflowId };
  }

  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    ledger = new LedgerStore(stack.db.models);
    vendor = await startScriptedVendor(countWords);
    const repo = new ToolRepository(stack.db.models);
    await repo.createProduct({ slug: 'words', name: 'word_counter', description: 'Counts words' });
    await repo.addAction('words', {
      slug: 'count',
      credits: 5,
      x402_usd: null,
      parameters_schema: {
        type: 'object',
        properties: { text: { type: 'string' }, key: { type: 'string' } },
        required: ['text'],
        additionalProperties: false,
      },
      runner: { kind: 'http', url: `${vendor.url}/count`, method: 'POST', timeout_ms: 60_000 },
    });
    g = await setupGroup(stack.db, { daily: 12, total: 100 });
    await ledger.grant({ wallet: account(), credits: 100, creditType: 'admin_grant' });
    await g.repo.setCredential({ workspaceId: g.workspaceId, name: 'VENDOR_KEY', value: 'k-123' });
    wf = await addWorkflow(stack.db, g, {
      name: 'count words',
      credentials: ['VENDOR_KEY'],
      nodes: [
        {
          id: 'count',
          type: 'tool',
          product: 'words',
          action: 'count',
          parameters: { text: '{{prompt}}', key: '{{credentials.VENDOR_KEY}}' },
        },
        { id: 'say', type: 'template', template: '{{nodes.count.output.words}} words' },
      ],
      edges: [{ from: 'count', to: 'say' }],
    });
  });
  afterAll(async () => {
    await vendor.stop();
    await stack.stop();
  });

  it('charges the workspace account once per node and answers with the final node', async () => {
    const res = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'one two three' });
    const run = await waitForRun(stack.server.mainUrl, res.body.data.run.run_id, g.token);
    expect(run).toMatchObject({ status: 'completed', response_text: '3 words' });
    expect(run.run_metadata.nodes[0]).toMatchObject({
      id: 'count',
      status: 'completed',
      credits_charged: 5,
      transaction_id: expect.stringContaining(run.run_id),
    });
    expect(vendor.calls.at(-1)!.body).toMatchObject({ parameters: { text: 'one two three', key: 'k-123' } });
    expect((await ledger.balance(account())).balance).toBe(95);
    expect(await new BudgetChargeRepository(stack.db.models).spent(g.budgetId)).toMatchObject({ today: 5, total: 5 });
  });

  it('retries a vendor failure as a new try: the run completes, the failed try released, only the good try charged', async () => {
    const { group: other, account: acct, workflowId: flaky } = await fundedCountWorkflow('flaky words', 20);
    let failuresLeft = 1;
    vendor.set((call) => (failuresLeft-- > 0 ? { status: 502, body: { error: 'upstream hiccup' } } : countWords(call)));
    const before = vendor.calls.length;
    try {
      const res = await trigger(stack.server.mainUrl, other.token, flaky, { prompt: 'four little words here' });
      const run = await waitForRun(stack.server.mainUrl, res.body.data.run.run_id, other.token);
      expect(run).toMatchObject({ status: 'completed' });
      expect(run.run_metadata.nodes[0]).toMatchObject({ id: 'count', status: 'completed', credits_charged: 5 });
      const tries = vendor.calls.slice(before);
      expect(tries).toHaveLength(2);
      // Two tries, two idempotency keys: the vendor said the first failed, the second is a new call.
      expect(new Set(tries.map((c) => c.headers['idempotency-key'])).size).toBe(2);
      expect((await ledger.balance(acct)).balance).toBe(15);
      const { transactions } = await ledger.history(acct, 50);
      expect(transactions.map((t) => t.transaction_type).sort()).toEqual(['grant', 'purchase']);
      const repo = new ToolRepository(stack.db.models);
      const key = `run:${run.run_id}:count`;
      // The outcomes live on the entries that settled the holds (release, purchase).
      expect(await callRecord(ledger, repo, acct, key)).toMatchObject({
        status: 'failed',
        error_code: 'vendor_error',
        attempt: 1,
      });
      expect(await callRecord(ledger, repo, acct, `${key}~2`)).toMatchObject({ status: 'succeeded', attempt: 2 });
    } finally {
      vendor.set(countWords);
    }
  });

  it('refuses a call over the daily allowance with budget_exceeded: nothing held, nothing charged, the vendor never called', async () => {
    const second = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'a b' });
    expect((await waitForRun(stack.server.mainUrl, second.body.data.run.run_id, g.token)).status).toBe('completed');
    const calls = vendor.calls.length;
    const third = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'over budget' });
    const run = await waitForRun(stack.server.mainUrl, third.body.data.run.run_id, g.token);
    expect(run).toMatchObject({ status: 'failed', error_code: 'budget_exceeded' });
    expect(run.error_message).toContain('daily allowance of 12');
    expect(vendor.calls.length).toBe(calls);
    expect((await ledger.balance(account())).balance).toBe(90);
    expect(await new BudgetChargeRepository(stack.db.models).spent(g.budgetId)).toMatchObject({ today: 10 });
  });

  it('cancels a run while its slow tool call runs: the vendor call is aborted and the held credits released', async () => {
    const { group: other, workflowId: slow } = await fundedCountWorkflow('slow words', 50);
    vendor.set(() => ({ status: 200, body: { words: 1 }, delayMs: 30_000 }));
    const before = vendor.calls.length;
    const res = await trigger(stack.server.mainUrl, other.token, slow, { prompt: 'slow' });
    const runId = res.body.data.run.run_id;
    for (let i = 0; vendor.calls.length === before && i < 300; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await ledger.balance(`ws:${other.workspaceId}`)).balance).toBe(45);

    const cancel = await http('POST', `${stack.server.mainUrl}/api/agent-webhooks/runs/${runId}/cancel`, {
      headers: { authorization: `Bearer ${other.token}` },
    });
    expect(cancel.status).toBe(200);
    expect(cancel.body.data.run).toMatchObject({ status: 'cancelled' });
    expect((await ledger.balance(`ws:${other.workspaceId}`)).balance).toBe(50);
    const { transactions } = await ledger.history(`ws:${other.workspaceId}`, 50);
    expect(transactions.filter((t) => t.transaction_type === 'purchase')).toHaveLength(0);
    expect(await new BudgetChargeRepository(stack.db.models).spent(other.budgetId)).toMatchObject({ total: 0 });
    vendor.set(countWords);
  });
});
