import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { extractDiscoveryInfoFromExtension, validateDiscoveryExtension } from '@x402/extensions/bazaar';
import type { Address } from 'viem';
import { receiptFromMcpResult, verifyReceipt } from '../../sdk/src/payments';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { AccessTokenService } from '../../shared/identity/access-tokens';
import { DEV_ACCOUNT_INDEX, devAccount } from '../../shared/payments/chain/dev-accounts';
import { ToolRepository } from '../../shared/tools/repository';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { workspaceAccount } from '../../shared/workspaces/types';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { startTestStack, TestStack } from '../support/stack';
import { startScriptedVendor } from '../support/vendor';
import { addWorkflow, setupGroup, templateWorkflow } from '../support/webhook-runs';

const merchant = devAccount(DEV_ACCOUNT_INDEX.merchant).address as Address;

/** The receipt the x402 MCP transport's settlement carries, read by hand (the spec's placement) and by the SDK. */
const receiptOf = (result: { _meta?: Record<string, unknown> }) => {
  const byHand = (result._meta as any)?.['x402/payment-response']?.extensions?.['offer-receipt']?.info?.receipt;
  expect(receiptFromMcpResult(result)).toEqual(byHand);
  return byHand;
};

describe('MCP: receipts on paid results, agent groups paying for catalog tools, paging, discovery', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let ledger: LedgerStore;
  let signer: string;
  let wallet: string;
  let token: string;
  const clients: Client[] = [];
  const invokeUrl = (action: string) =>
    `${stack.config.publicBaseUrl}/api/external/tools/calc/actions/${action}/invoke`;

  async function connect(headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'mcp-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.server.mainUrl}/mcp`), { requestInit: { headers } }),
    );
    clients.push(client);
    return client;
  }
  const tamper = (r: any) => ({ ...r, payload: { ...r.payload, payer: '0x' + '66'.repeat(20) } });

  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    ledger = new LedgerStore(stack.db.models);
    vendor = await startScriptedVendor((call) => {
      const b = call.body as { action: string; parameters: { values?: number[]; fail?: boolean } };
      if (b.parameters.fail) return { status: 500, body: { error: 'vendor broke' } };
      const values = b.parameters.values ?? [];
      return { status: 200, body: { result: { action: b.action, value: values.reduce((s, v) => s + v, 0) } } };
    });
    const repo = new ToolRepository(stack.db.models);
    await repo.createProduct({ slug: 'calc', name: 'calc', display_name: 'Calc', description: 'Arithmetic' });
    const schema = {
      type: 'object',
      properties: { values: { type: 'array', items: { type: 'number' }, maxItems: 10 }, fail: { type: 'boolean' } },
      required: ['values'],
      additionalProperties: false,
    };
    const runner = (slug: string) => ({
      kind: 'http' as const,
      url: `${vendor.url}/${slug}`,
      method: 'POST' as const,
      timeout_ms: 20_000,
    });
    await repo.addAction('calc', {
      slug: 'sum',
      description: 'The sum of the values',
      credits: 5,
      x402_usd: '0.02',
      parameters_schema: schema,
      runner: runner('sum'),
    });
    await repo.addAction('calc', {
      slug: 'count',
      description: 'Credits only',
      credits: 3,
      parameters_schema: schema,
      runner: runner('count'),
    });
    wallet = '0x' + 'e7'.repeat(20);
    token = (await new AccessTokenService(stack.db.models).issue({ wallet, createdBy: 'operator' as never }))
      .access_token;
    await ledger.grant({ wallet, credits: 50, creditType: 'admin_grant' });
    const supported = await http('GET', `${stack.server.mainUrl}/supported`);
    signer = supported.body.receiptSigner;
    expect(signer).toMatch(/^0x[0-9a-fA-F]{40}$/);
  }, 180_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await vendor?.stop();
    await stack?.stop();
  });

  it('a call paid with credits carries the signed receipt of the debit; verifyReceipt accepts it, refuses it tampered; a replay answers the same receipt', async () => {
    const client = await connect({ authorization: `Bearer ${token}` });
    const call = () =>
      client.callTool({
        name: 'calc__sum',
        arguments: { values: [1, 2] },
        _meta: { 'agent-commerce/idempotency-key': 'receipt-1' },
      });
    const paid = await call();
    expect(paid.isError).toBeFalsy();
    const structured = paid.structuredContent as any;
    const settled = (paid._meta as any)['x402/payment-response'];
    expect(settled).toMatchObject({
      success: true,
      transaction: `credits:${structured.transaction_id}`,
      network: 'eip155:84532',
      payer: wallet,
    });
    const receipt = receiptOf(paid);
    expect(structured.receipt).toEqual(receipt);
    const ok = await verifyReceipt(receipt, {
      signer,
      payer: wallet,
      resourceUrl: invokeUrl('sum'),
      transaction: `credits:${structured.transaction_id}`,
    });
    expect(ok).toEqual({ ok: true, payload: expect.anything() });
    expect((await verifyReceipt(tamper(receipt), { signer })).ok).toBe(false);

    // The replay is the recorded call: charged once, the very same signed receipt (a second later,
    // so a receipt issued at "now" would differ in issuedAt and fail this).
    await new Promise((r) => setTimeout(r, 1100));
    const again = await call();
    expect(receiptOf(again)).toEqual(receipt);
    expect((await ledger.balance(wallet)).balance).toBe(45);
  });

  it('an idempotency key answers only the call it was made for: another tool or other arguments under it are refused (409), nothing charged, no receipt for what was not paid', async () => {
    const client = await connect({ authorization: `Bearer ${token}` });
    const meta = { 'agent-commerce/idempotency-key': 'cheap-then-dear' };
    // The cheap tool first (count, 3 credits), then the dearer one (sum, 5) under the same key.
    const cheap = await client.callTool({ name: 'calc__count', arguments: { values: [1] }, _meta: meta });
    expect(cheap.isError).toBeFalsy();
    const balance = (await ledger.balance(wallet)).balance;
    const vendorCalls = vendor.calls.length;
    for (const other of [
      { name: 'calc__sum', arguments: { values: [1] } },
      { name: 'calc__count', arguments: { values: [2] } },
    ]) {
      const refused = await client.callTool({ ...other, _meta: meta });
      expect(refused.isError).toBe(true);
      expect((refused.structuredContent as any).error).toMatchObject({ code: 'request_id_conflict', status: 409 });
      expect(refused._meta?.['x402/payment-response']).toBeUndefined();
    }
    expect(vendor.calls.length).toBe(vendorCalls);
    expect((await ledger.balance(wallet)).balance).toBe(balance);
    // The cheap call itself under its key: its record and its own receipt, for the count resource.
    const again = await client.callTool({ name: 'calc__count', arguments: { values: [1] }, _meta: meta });
    expect(receiptOf(again)).toEqual(receiptOf(cheap));
    const checked = await verifyReceipt(receiptOf(again), { signer, resourceUrl: invokeUrl('count') });
    expect(checked.ok).toBe(true);
  });

  it('a call paid with x402 over MCP carries the signed receipt of the settlement in _meta["x402/payment-response"]; a replay answers it again', async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    const client = await connect();
    const args = { values: [3, 4] };
    const unpaid = await client.callTool({ name: 'calc__sum', arguments: args });
    const payment = await payer.client().createPaymentPayload(unpaid.structuredContent as any);
    const paid = await client.callTool({ name: 'calc__sum', arguments: args, _meta: { 'x402/payment': payment } });
    expect(paid.isError).toBeFalsy();
    const settled = (paid._meta as any)['x402/payment-response'];
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = receiptOf(paid);
    const ok = await verifyReceipt(receipt, {
      signer,
      payer: payer.account.address,
      resourceUrl: invokeUrl('sum'),
      transaction: settled.transaction,
    });
    expect(ok).toEqual({ ok: true, payload: expect.anything() });
    expect((paid.structuredContent as any).x402.receipt).toEqual(receipt);
    expect((await verifyReceipt(tamper(receipt), { signer })).ok).toBe(false);
    const again = await client.callTool({ name: 'calc__sum', arguments: args, _meta: { 'x402/payment': payment } });
    expect(receiptOf(again)).toEqual(receipt);
    expect(await payer.paidIn(settled.transaction, merchant)).toBe(20_000n);
  }, 120_000);

  it("an agent group's catalog call is charged once to its workspace's credits under its budget; failures and refusals cost nothing", async () => {
    const g = await setupGroup(stack.db, { daily: 12, catalogTools: true });
    const account = workspaceAccount(g.workspaceId);
    await ledger.grant({ wallet: account, credits: 100, creditType: 'admin_grant' });
    const client = await connect({ authorization: `Bearer ${g.token}` });
    const calls = vendor.calls.length;
    const call = (key: string, values: unknown = [5, 5], extra: Record<string, unknown> = {}) =>
      client.callTool({
        name: 'calc__sum',
        arguments: { values, ...extra },
        _meta: { 'agent-commerce/idempotency-key': key },
      });

    const paid = await call('g-1');
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({ response: { value: 10 }, credits_charged: 5 });
    const receipt = receiptOf(paid);
    expect((await verifyReceipt(receipt, { signer, payer: account })).ok).toBe(true);
    // Concurrent repeats of the same request: the recorded result or in progress, never a second charge.
    const repeats = await Promise.all([call('g-1'), call('g-1')]);
    for (const r of repeats) expect(r.structuredContent).toEqual(paid.structuredContent);
    expect((await ledger.balance(account)).balance).toBe(95);
    expect(vendor.calls.length).toBe(calls + 1);
    expect(await stack.db.models.budgetCharges.countDocuments({ budget_id: g.budgetId })).toBe(1);

    // A failing vendor, bad arguments: nothing charged, no budget row left.
    const failed = await call('g-2', [1], { fail: true });
    expect(failed).toMatchObject({ isError: true, structuredContent: { error: { code: 'vendor_error' } } });
    const bad = await call('g-3', 'nope');
    expect(bad).toMatchObject({ isError: true, structuredContent: { error: { code: 'invalid_parameters' } } });
    expect((await ledger.balance(account)).balance).toBe(95);
    expect(await stack.db.models.budgetCharges.countDocuments({ budget_id: g.budgetId })).toBe(1);

    // The budget allows 12 a day: 5 committed, another 5 fits, a third is over it and costs nothing.
    expect((await call('g-4')).isError).toBeFalsy();
    const over = await call('g-5');
    expect(over).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'budget_exceeded', details: { limit: 'daily', allowance: 12 } } },
    });
    expect((await ledger.balance(account)).balance).toBe(90);
    expect(await stack.db.models.budgetCharges.countDocuments({ budget_id: g.budgetId })).toBe(2);

    // A credits-only tool is served the same way; paying both ways is refused.
    const both = await client.callTool({
      name: 'calc__count',
      arguments: { values: [1] },
      _meta: { 'x402/payment': { x402Version: 2 } },
    });
    expect(both).toMatchObject({ isError: true, structuredContent: { error: { code: 'mixed_payment_modes' } } });
  }, 120_000);

  it('an agent group whose budget was not given catalog tools is refused them, with nothing held or charged', async () => {
    const g = await setupGroup(stack.db, { daily: 100 });
    const account = workspaceAccount(g.workspaceId);
    await ledger.grant({ wallet: account, credits: 100, creditType: 'admin_grant' });
    const client = await connect({ authorization: `Bearer ${g.token}` });
    const calls = vendor.calls.length;
    const refused = await client.callTool({
      name: 'calc__sum',
      arguments: { values: [1, 2] },
      _meta: { 'agent-commerce/idempotency-key': 'no-catalog-1' },
    });
    expect(refused).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'catalog_tools_not_on_budget' } },
    });
    expect(vendor.calls.length).toBe(calls);
    expect((await ledger.balance(account)).balance).toBe(100);
    expect(await stack.db.models.budgetCharges.countDocuments({ budget_id: g.budgetId })).toBe(0);
  }, 120_000);

  it("an agent group's concurrent copies of one call are charged once; too few workspace credits or over the total allowance costs nothing", async () => {
    const g = await setupGroup(stack.db, { total: 9, catalogTools: true });
    const account = workspaceAccount(g.workspaceId);
    const client = await connect({ authorization: `Bearer ${g.token}` });
    const call = (key: string) =>
      client.callTool({
        name: 'calc__sum',
        arguments: { values: [2, 2] },
        _meta: { 'agent-commerce/idempotency-key': key },
      });

    // No workspace credits yet: refused before the vendor, the budget's reservation given back.
    const calls = vendor.calls.length;
    const broke = await call('c-0');
    expect(broke).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'insufficient_credits', details: { balance: 0, credits_required: 5 } } },
    });
    expect(await stack.db.models.budgetCharges.countDocuments({ budget_id: g.budgetId })).toBe(0);

    await ledger.grant({ wallet: account, credits: 30, creditType: 'admin_grant' });
    const copies = await Promise.all(Array.from({ length: 4 }, () => call('c-1')));
    const done = copies.filter((r) => !r.isError);
    expect(done.length).toBeGreaterThanOrEqual(1);
    for (const r of copies)
      if (r.isError) expect(r.structuredContent).toMatchObject({ error: { code: 'invocation_in_progress' } });
      else expect(r.structuredContent).toEqual(done[0]!.structuredContent);
    expect(vendor.calls.length).toBe(calls + 1);
    expect((await ledger.balance(account)).balance).toBe(25);
    expect(await stack.db.models.budgetCharges.countDocuments({ budget_id: g.budgetId })).toBe(1);

    // The total allowance is 9: 5 committed, another 5 is over it.
    expect(await call('c-2')).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'budget_exceeded', details: { limit: 'total', allowance: 9 } } },
    });
    expect((await ledger.balance(account)).balance).toBe(25);
    expect(await stack.db.models.budgetCharges.countDocuments({ budget_id: g.budgetId })).toBe(1);
  }, 120_000);

  it("a workflow tool whose run fails answers a tool error with the run's code, its id and status URL", async () => {
    const g = await setupGroup(stack.db);
    // The workspace holds no credits: the run's tool node is refused (a final failure).
    const id = await addWorkflow(stack.db, g, {
      name: 'summer',
      description: 'sums',
      nodes: [{ id: 'sum', type: 'tool', product: 'calc', action: 'sum', parameters: { values: [1, 2] } }],
      edges: [],
    });
    await new WorkflowRepository(stack.db.models).publish(id, '1.0.0');
    const client = await connect({ authorization: `Bearer ${g.token}` });
    const calls = vendor.calls.length;
    const failed = await client.callTool({ name: `workflow__${id}`, arguments: { prompt: 'x' } });
    expect(failed).toMatchObject({
      isError: true,
      structuredContent: {
        error: { code: 'insufficient_credits' },
        status: 'failed',
        run_id: expect.stringMatching(/^run_/),
        status_url: expect.stringContaining('/api/agent-webhooks/runs/run_'),
      },
    });
    expect(vendor.calls.length).toBe(calls);
  }, 120_000);

  it("walking nextCursor with an agent group's token lists each workflow and catalog tool exactly once, over several pages", async () => {
    const repo = new ToolRepository(stack.db.models);
    await repo.insertProducts(
      Array.from({ length: 30 }, (_, i) => ({ slug: `pad-${i}`, name: `pad_${i}`, description: 'pad' })),
    );
    for (let i = 0; i < 30; i++)
      await repo.addAction(`pad-${i}`, {
        slug: 'go',
        description: 'pad',
        credits: 1,
        parameters_schema: { type: 'object' },
        runner: { kind: 'http', url: `${vendor.url}/go`, method: 'POST', timeout_ms: 5_000 },
      });
    const g = await setupGroup(stack.db);
    const workflows = new WorkflowRepository(stack.db.models);
    const published: string[] = [];
    // More than two pages of workflow ids (20 a page) beside fewer pages of products.
    for (let i = 0; i < 45; i++) {
      const id = await addWorkflow(stack.db, g, templateWorkflow(`wf-${i}`));
      await workflows.publish(id, '1.0.0');
      published.push(id);
    }
    const draft = await addWorkflow(stack.db, g, templateWorkflow('draft'));
    const client = await connect({ authorization: `Bearer ${g.token}` });
    // The first page as a plain request (the SDK's no-cursor call walks every page itself), then by cursor.
    const raw = await fetch(`${stack.server.mainUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${g.token}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const text = await raw.text();
    const first = JSON.parse(text.startsWith('{') ? text : text.split('data: ')[1]!).result;
    const seen: string[] = first.tools.map((t: { name: string }) => t.name);
    const perPage = [seen.filter((n) => n.startsWith('workflow__')).length];
    let cursor: string | undefined = first.nextCursor;
    let pages = 1;
    while (cursor !== undefined && pages < 50) {
      const page = await client.listTools({ cursor });
      const names = page.tools.map((t) => t.name);
      seen.push(...names);
      perPage.push(names.filter((n) => n.startsWith('workflow__')).length);
      cursor = page.nextCursor;
      pages++;
    }
    // Workflows are paged too (20 ids a page), past the catalog's last page of products.
    expect(perPage.slice(0, 3)).toEqual([20, 20, 5]);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of published) expect(seen).toContain(`workflow__${id}`);
    expect(seen).not.toContain(`workflow__${draft}`);
    expect(seen).toEqual(expect.arrayContaining(['calc__sum', 'calc__count', 'pad-0__go', 'pad-29__go']));
    const all = await client.listTools(undefined, { cacheMode: 'refresh' });
    expect(all.tools.map((t) => t.name).sort()).toEqual([...seen].sort());
  }, 180_000);

  it('/discovery/resources?type=mcp lists every MCP tool paid with x402: the MCP endpoint, the tool name and schema, its accepts', async () => {
    const mcp = await http('GET', `${stack.server.mainUrl}/discovery/resources?type=mcp&limit=100`);
    expect(mcp.status).toBe(200);
    const items: any[] = mcp.body.items;
    expect(items.map((i) => [i.type, i.resource])).toEqual(
      items.map(() => ['mcp', `${stack.config.publicBaseUrl}/mcp`]),
    );
    const names = items.map((i) => i.extensions.bazaar.info.input.toolName);
    expect(names).toContain('calc__sum');
    // Credits-only tools are not payable with x402: not in the Bazaar.
    expect(names).not.toContain('calc__count');
    const sum = items.find((i) => i.extensions.bazaar.info.input.toolName === 'calc__sum');
    const challenge = (await (await connect()).callTool({ name: 'calc__sum', arguments: { values: [1] } }))
      .structuredContent as any;
    expect(sum).toMatchObject({
      x402Version: 2,
      accepts: challenge.accepts,
      extensions: {
        bazaar: {
          info: { input: { type: 'mcp', transport: 'streamable-http', inputSchema: { required: ['values'] } } },
        },
      },
    });
    expect(challenge.accepts[0]).toMatchObject({ amount: '20000', payTo: merchant });
    // What a facilitator does before cataloging: the info validates against the schema it carries.
    for (const item of items) expect(validateDiscoveryExtension(item.extensions.bazaar)).toEqual({ valid: true });
    expect(extractDiscoveryInfoFromExtension(sum.extensions.bazaar)).toMatchObject({
      input: { type: 'mcp', toolName: 'calc__sum' },
    });
    // Every priced MCP tool of tools/list is listed, and nothing else.
    const { tools } = await (await connect()).listTools();
    const priced = tools.filter((t) => (t._meta as any)['agent-commerce/price'].x402_usd).map((t) => t.name);
    expect([...names].sort()).toEqual(priced.sort());
    // No type: the HTTP resources and the MCP tools together; type=http: none of the MCP ones.
    const both = await http('GET', `${stack.server.mainUrl}/discovery/resources?limit=100`);
    const httpOnly = await http('GET', `${stack.server.mainUrl}/discovery/resources?type=http&limit=100`);
    expect(both.body.pagination.total).toBe(httpOnly.body.pagination.total + mcp.body.pagination.total);
    expect(httpOnly.body.items.some((i: any) => i.type === 'mcp')).toBe(false);
  });
});
