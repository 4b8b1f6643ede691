import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Address } from 'viem';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { AccessTokenService } from '../../shared/identity/access-tokens';
import { DEV_ACCOUNT_INDEX, devAccount } from '../../shared/payments/chain/dev-accounts';
import { ToolRepository } from '../../shared/tools/repository';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { TestPayer } from '../support/payer';
import { startTestStack, TestStack } from '../support/stack';
import { startScriptedVendor } from '../support/vendor';
import { addWorkflow, setupGroup, templateWorkflow } from '../support/webhook-runs';

const merchant = devAccount(DEV_ACCOUNT_INDEX.merchant).address as Address;

describe('the MCP server at /mcp, driven by the official MCP client SDK against the real stack', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let ledger: LedgerStore;
  let wallet: string;
  let token: string;
  const clients: Client[] = [];

  async function connect(headers: Record<string, string> = {}, mode: 'auto' | 'legacy' = 'auto'): Promise<Client> {
    const client = new Client({ name: 'mcp-test', version: '1.0.0' }, { versionNegotiation: { mode } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.server.mainUrl}/mcp`), { requestInit: { headers } }),
    );
    clients.push(client);
    return client;
  }
  const walletClient = () => connect({ authorization: `Bearer ${token}` });
  // A charge is one `purchase` entry (the capture of its hold); a released hold leaves none.
  const spends = () =>
    stack.db.models.creditTransactions.countDocuments({ user_id: wallet, transaction_type: 'purchase' });

  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    ledger = new LedgerStore(stack.db.models);
    vendor = await startScriptedVendor((call) => {
      const b = call.body as { action: string; parameters: { values?: number[]; fail?: boolean } };
      if (b.parameters.fail) return { status: 500, body: { error: 'vendor broke' } };
      const values = b.parameters.values ?? [];
      const out = b.action === 'mean' ? values.reduce((s, v) => s + v, 0) / (values.length || 1) : values.length;
      return { status: 200, body: { result: { action: b.action, value: out } } };
    });
    const repo = new ToolRepository(stack.db.models);
    await repo.createProduct({ slug: 'stats', name: 'stats', display_name: 'Stats', description: 'Statistics' });
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
    await repo.addAction('stats', {
      slug: 'mean',
      description: 'The mean of the values',
      credits: 4,
      x402_usd: '0.01',
      parameters_schema: schema,
      runner: runner('mean'),
    });
    await repo.addAction('stats', {
      slug: 'count',
      description: 'How many values',
      credits: 2,
      parameters_schema: schema,
      runner: runner('count'),
    });
    wallet = '0x' + 'c4'.repeat(20);
    token = (await new AccessTokenService(stack.db.models).issue({ wallet, createdBy: 'operator' as never }))
      .access_token;
    await ledger.grant({ wallet, credits: 20, creditType: 'admin_grant' });
  }, 180_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await vendor?.stop();
    await stack?.stop();
  });

  it('lists every active action as a tool: its JSON Schema, its price in the description and in _meta, on the 2026-07-28 revision', async () => {
    const client = await connect();
    expect(client.getProtocolEra()).toBe('modern');
    const { tools } = await client.listTools();
    const mean = tools.find((t) => t.name === 'stats__mean');
    expect(mean).toMatchObject({
      name: 'stats__mean',
      inputSchema: { type: 'object', properties: { values: { type: 'array' } }, required: ['values'] },
      _meta: { 'agent-commerce/price': { credits: 4, x402_usd: '0.01', product: 'stats', action: 'mean' } },
    });
    expect(mean!.description).toContain('4 credits per call');
    expect(mean!.description).toContain('0.01 USD paid with x402');
    expect(tools.find((t) => t.name === 'stats__count')?.description).toContain('2 credits per call');
  });

  it('serves a 2025-era client (initialize handshake) from the same endpoint', async () => {
    const client = await connect({}, 'legacy');
    expect(client.getProtocolEra()).toBe('legacy');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['stats__mean', 'stats__count']));
  });

  it('pages tools/list with the catalog: an opaque cursor per page of products, a bad cursor a -32602 error with our code', async () => {
    const repo = new ToolRepository(stack.db.models);
    await repo.insertProducts(
      Array.from({ length: 25 }, (_, i) => ({ slug: `filler-${i}`, name: `filler_${i}`, description: 'filler' })),
    );
    // The first page as a plain 2025-era request (the SDK client's no-cursor call walks every page itself).
    const res = await fetch(`${stack.server.mainUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const text = await res.text();
    const first = JSON.parse(text.startsWith('{') ? text : text.split('data: ')[1]!).result;
    expect(first.nextCursor).toEqual(expect.any(String));
    const firstNames = first.tools.map((t: { name: string }) => t.name);
    const client = await connect();
    const second = await client.listTools({ cursor: first.nextCursor });
    expect(second.tools.filter((t) => firstNames.includes(t.name))).toEqual([]);
    // Products without actions are no tools; the pages together are the whole list, once each.
    const all = await client.listTools(undefined, { cacheMode: 'refresh' });
    expect([...firstNames, ...second.tools.map((t) => t.name)].sort()).toEqual(all.tools.map((t) => t.name).sort());
    expect(all.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['stats__mean', 'stats__count']));
    await expect(client.listTools({ cursor: 'not-ours' })).rejects.toMatchObject({
      code: -32602,
      data: { code: 'invalid_cursor' },
    });
  });

  it('calls a tool paid with credits: vendor called once, charged its price exactly once (balance and ledger)', async () => {
    const client = await walletClient();
    const before = (await ledger.balance(wallet)).balance;
    const spent = await spends();
    const calls = vendor.calls.length;
    const result = await client.callTool({ name: 'stats__mean', arguments: { values: [2, 4] } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ response: { action: 'mean', value: 3 }, credits_charged: 4 });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual({ action: 'mean', value: 3 });
    expect(vendor.calls.length).toBe(calls + 1);
    expect((await ledger.balance(wallet)).balance).toBe(before - 4);
    expect(await spends()).toBe(spent + 1);
  });

  it('a call replayed with the same idempotency key is charged once and answers the same result', async () => {
    const client = await walletClient();
    const before = (await ledger.balance(wallet)).balance;
    const calls = vendor.calls.length;
    const call = () =>
      client.callTool({
        name: 'stats__count',
        arguments: { values: [1, 2, 3] },
        _meta: { 'agent-commerce/idempotency-key': 'mcp-once-1' },
      });
    const first = await call();
    const again = await Promise.all([call(), call()]);
    for (const r of again) {
      if (r.isError) expect(r.structuredContent).toMatchObject({ error: { code: 'invocation_in_progress' } });
      else expect(r.structuredContent).toEqual(first.structuredContent);
    }
    expect(await call()).toMatchObject({ structuredContent: first.structuredContent });
    expect(vendor.calls.length).toBe(calls + 1);
    expect((await ledger.balance(wallet)).balance).toBe(before - 2);
  });

  it('refuses without charging: bad arguments, a failing vendor, too few credits, a credits-only tool without a token, a bad token', async () => {
    const client = await walletClient();
    const before = (await ledger.balance(wallet)).balance;
    const spent = await spends();
    const calls = vendor.calls.length;

    const bad = await client.callTool({ name: 'stats__mean', arguments: { values: 'three' } });
    expect(bad).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'invalid_parameters', status: 400 } },
    });
    expect(vendor.calls.length).toBe(calls);

    const failed = await client.callTool({ name: 'stats__mean', arguments: { values: [1], fail: true } });
    expect(failed).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'vendor_error', status: 502 } },
    });

    await expect(client.callTool({ name: 'stats__nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      data: { code: 'tool_not_found' },
    });

    const poor = '0x' + 'd5'.repeat(20);
    const poorToken = (
      await new AccessTokenService(stack.db.models).issue({ wallet: poor, createdBy: 'operator' as never })
    ).access_token;
    await ledger.grant({ wallet: poor, credits: 1, creditType: 'admin_grant' });
    const broke = await (
      await connect({ authorization: `Bearer ${poorToken}` })
    ).callTool({
      name: 'stats__count',
      arguments: { values: [1] },
    });
    expect(broke).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'insufficient_credits', details: { balance: 1, credits_required: 2 } } },
    });
    expect((await ledger.balance(poor)).balance).toBe(1);

    const anonymous = await (await connect()).callTool({ name: 'stats__count', arguments: { values: [1] } });
    expect(anonymous).toMatchObject({ isError: true, structuredContent: { error: { code: 'missing_bearer' } } });

    await expect(connect({ authorization: 'Bearer act_' + '0'.repeat(43) })).rejects.toMatchObject({ status: 401 });
    const raw = await fetch(`${stack.server.mainUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer nope',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).toBe(401);
    expect(await raw.json()).toMatchObject({ error: { data: { code: 'invalid_bearer' } } });

    expect(vendor.calls.length).toBe(calls + 1);
    expect((await ledger.balance(wallet)).balance).toBe(before);
    expect(await spends()).toBe(spent);
  });

  it('is paid with x402 over MCP on the local chain: challenge as a tool error, paid retry with _meta["x402/payment"], settled once', async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    const client = await connect();
    const args = { values: [10, 20] };
    const unpaid = await client.callTool({ name: 'stats__mean', arguments: args });
    expect(unpaid.isError).toBe(true);
    const challenge = unpaid.structuredContent as any;
    expect(challenge).toMatchObject({
      x402Version: 2,
      error: 'payment_required',
      accepts: [{ scheme: 'exact', network: 'eip155:84532', amount: '10000', payTo: merchant }],
    });
    expect(JSON.parse((unpaid.content as Array<{ text: string }>)[0]!.text)).toEqual(challenge);

    const payment = await payer.client().createPaymentPayload(challenge);
    const calls = vendor.calls.length;
    const paid = await client.callTool({ name: 'stats__mean', arguments: args, _meta: { 'x402/payment': payment } });
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({ response: { value: 15 }, x402: { settled: true } });
    const settled = (paid._meta as any)['x402/payment-response'];
    expect(settled).toMatchObject({ success: true, network: 'eip155:84532' });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await payer.paidIn(settled.transaction, merchant)).toBe(10_000n);

    // The same payment again: no second vendor call, no second settlement; its status and receipt
    // (the result goes to the payer's proof: test/mcp/mcp-x402-replay.test.ts).
    const again = await client.callTool({ name: 'stats__mean', arguments: args, _meta: { 'x402/payment': payment } });
    expect(again.structuredContent).toMatchObject({ status: 'settled', x402: { transaction: settled.transaction } });
    expect(vendor.calls.length).toBe(calls + 1);
    expect(await payer.balance()).toBe(1_000_000n - 10_000n);
    expect(await stack.db.models.x402Payments.countDocuments({ payer: payer.account.address.toLowerCase() })).toBe(1);

    // The payment bought this call only; with other arguments it is refused, nothing more settled.
    const other = await client.callTool({
      name: 'stats__mean',
      arguments: { values: [1] },
      _meta: { 'x402/payment': payment },
    });
    expect(other).toMatchObject({ isError: true, structuredContent: { error: { code: 'payment_already_used' } } });
    expect(await payer.balance()).toBe(1_000_000n - 10_000n);
  }, 120_000);

  it('refuses a call paying both ways, and a malformed payment, before anything is charged', async () => {
    const client = await walletClient();
    const before = (await ledger.balance(wallet)).balance;
    const both = await client.callTool({
      name: 'stats__mean',
      arguments: { values: [1] },
      _meta: { 'x402/payment': { x402Version: 2 } },
    });
    expect(both).toMatchObject({ isError: true, structuredContent: { error: { code: 'mixed_payment_modes' } } });
    const malformed = await (
      await connect()
    ).callTool({
      name: 'stats__mean',
      arguments: { values: [1] },
      _meta: { 'x402/payment': { x402Version: 2, payload: 'nope' } },
    });
    expect(malformed).toMatchObject({ isError: true, structuredContent: { error: { code: 'malformed_payment' } } });
    expect((await ledger.balance(wallet)).balance).toBe(before);
  });

  it('the CLI prints the client configuration (mcp config) that connects an MCP client paying with credits', async () => {
    const bin = join(__dirname, '../../sdk/bin/agent-commerce.cjs');
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [bin, 'mcp', 'config', '--token', token, '--base-url', stack.server.mainUrl, '--json'],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let text = '';
      child.stdout.on('data', (c: Buffer) => (text += c.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}: ${text}`))));
    });
    const config = JSON.parse(out);
    const entry = config.mcpServers['agent-commerce'];
    expect(entry).toEqual({
      type: 'http',
      url: `${stack.server.mainUrl}/mcp`,
      headers: { Authorization: `Bearer ${token}` },
    });
    const client = new Client({ name: 'from-config', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } }),
    );
    clients.push(client);
    const before = (await ledger.balance(wallet)).balance;
    const result = await client.callTool({ name: 'stats__count', arguments: { values: [5] } });
    expect(result.structuredContent).toMatchObject({ response: { value: 1 }, credits_charged: 2 });
    expect((await ledger.balance(wallet)).balance).toBe(before - 2);
  }, 120_000);

  it("an agent group's published workflows are its tools: calling one triggers a webhook run and answers its result", async () => {
    const g = await setupGroup(stack.db, { daily: 1000 });
    const published = await addWorkflow(stack.db, g, templateWorkflow('greeter'));
    await new WorkflowRepository(stack.db.models).publish(published, '1.0.0');
    const draft = await addWorkflow(stack.db, g, templateWorkflow('draft'));
    // Named like a conformance fixture: with MCP_CONFORMANCE_FIXTURES off (here, as everywhere but
    // the conformance test) it is an ordinary workflow tool, and no fixture is listed or callable.
    const namedLikeFixture = await addWorkflow(stack.db, g, templateWorkflow('slow_compute'));
    await new WorkflowRepository(stack.db.models).publish(namedLikeFixture, '1.0.0');
    const client = await connect({ authorization: `Bearer ${g.token}` });
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain(`workflow__${namedLikeFixture}`);
    for (const fixture of ['slow_compute', 'greet', 'test_simple_text', 'test_missing_capability'])
      expect(names).not.toContain(fixture);
    await expect(client.callTool({ name: 'greet', arguments: { name: 'x' } })).rejects.toMatchObject({
      code: -32602,
      data: { code: 'tool_not_found' },
    });
    await expect(client.readResource({ uri: 'test://static-text' })).rejects.toMatchObject({ code: -32602 });
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'agent-commerce://runs/{run_id}',
      'agent-commerce://receipts/{transaction_id}',
    ]);
    expect(names).toContain(`workflow__${published}`);
    expect(names).not.toContain(`workflow__${draft}`);
    expect(names).toContain('stats__mean');
    expect(tools.find((t) => t.name === `workflow__${published}`)?.inputSchema).toMatchObject({ required: ['prompt'] });

    const result = await client.callTool({
      name: `workflow__${published}`,
      arguments: { prompt: 'MCP', request_id: 'mcp-run-1' },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'completed', response_text: 'Hello, MCP!' });
    const runId = (result.structuredContent as { run_id: string }).run_id;
    const again = await client.callTool({
      name: `workflow__${published}`,
      arguments: { prompt: 'MCP', request_id: 'mcp-run-1' },
    });
    expect((again.structuredContent as { run_id: string }).run_id).toBe(runId);
    expect(await stack.db.models.webhookRuns.countDocuments({ group_id: g.groupId })).toBe(1);

    const bad = await client.callTool({ name: `workflow__${published}`, arguments: { prompt: 7 } });
    expect(bad).toMatchObject({ isError: true, structuredContent: { error: { code: 'invalid_parameters' } } });
    // Another caller has no such tool.
    await expect(
      (await connect()).callTool({ name: `workflow__${published}`, arguments: { prompt: 'x' } }),
    ).rejects.toMatchObject({
      code: -32602,
      data: { code: 'tool_not_found' },
    });
  }, 120_000);

  it('refuses a foreign Host or Origin (DNS rebinding) with 403 before anything runs', async () => {
    const port = new URL(stack.server.mainUrl).port;
    const send = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/mcp',
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      });
    expect(await send({ host: 'evil.example.com' })).toBe(403);
    expect(await send({ host: `localhost:${port}`, origin: 'http://evil.example.com' })).toBe(403);
    expect(await send({ host: `localhost:${port}`, origin: `http://localhost:${port}` })).toBe(200);
  });
});
