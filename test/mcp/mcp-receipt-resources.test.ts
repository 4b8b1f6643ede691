import type { Client } from '@modelcontextprotocol/client';
import { verifyReceipt } from '../../sdk/src/payments';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { AccessTokenService } from '../../shared/identity/access-tokens';
import { ToolRepository } from '../../shared/tools/repository';
import { workspaceAccount } from '../../shared/workspaces/types';
import { http } from '../support/http';
import { connectMcp, mcpRpc } from '../support/mcp-rpc';
import { runDoc } from '../support/run-doc';
import { startTestStack, type TestStack } from '../support/stack';
import { startScriptedVendor } from '../support/vendor';
import { addWorkflow, sameWorkspaceGroup, setupGroup, templateWorkflow } from '../support/webhook-runs';

/** Raw JSON-RPC without the tasks extension; the answer's text kept, to compare bytes. */
const rpc = (url: string, token: string | undefined, method: string, params: Record<string, unknown>) =>
  mcpRpc(url, token, method, params, { tasks: false });

/** The receipt's JSON exactly as it stands in a raw JSON-RPC answer's text (its bytes, not a re-serialization). */
function receiptBytes(text: string): string {
  const at = text.indexOf('"receipt":');
  expect(at).toBeGreaterThan(0);
  // The receipt object: from its opening brace to the brace that closes it.
  let depth = 0;
  const start = text.indexOf('{', at);
  for (let i = start; i < text.length; i++) {
    if (text[i] === '{') depth++;
    if (text[i] === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  throw new Error('no receipt object in the answer');
}

const receiptUri = (transactionId: string) => `agent-commerce://receipts/${encodeURIComponent(transactionId)}`;

describe('MCP: receipts of paid calls as resources, scoped to their payer', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let ledger: LedgerStore;
  let url: string;
  let signer: string;
  const clients: Client[] = [];

  async function connect(token: string): Promise<Client> {
    const client = await connectMcp(url, token, 'receipts-test');
    clients.push(client);
    return client;
  }

  async function walletToken(wallet: string, credits: number): Promise<string> {
    await ledger.grant({ wallet, credits, creditType: 'admin_grant' });
    return (await new AccessTokenService(stack.db.models).issue({ wallet, createdBy: 'operator' as never }))
      .access_token;
  }

  /** A paid call of calc__sum over raw JSON-RPC: its answer and the bytes of its receipt. */
  async function paidCall(token: string, key: string, values: number[] = [1, 2], extra: Record<string, unknown> = {}) {
    const call = await rpc(url, token, 'tools/call', {
      name: 'calc__sum',
      arguments: { values, ...extra },
      _meta: { 'agent-commerce/idempotency-key': key },
    });
    expect(call.error).toBeUndefined();
    return call;
  }

  beforeAll(async () => {
    stack = await startTestStack();
    url = `${stack.server.mainUrl}/mcp`;
    ledger = new LedgerStore(stack.db.models);
    vendor = await startScriptedVendor((call) => {
      const b = call.body as { parameters: { values?: number[]; fail?: boolean } };
      if (b.parameters.fail) return { status: 500, body: { error: 'vendor broke' } };
      return { status: 200, body: { value: (b.parameters.values ?? []).reduce((s, v) => s + v, 0) } };
    });
    const repo = new ToolRepository(stack.db.models);
    await repo.createProduct({ slug: 'calc', name: 'calc', display_name: 'Calc', description: 'Arithmetic' });
    await repo.addAction('calc', {
      slug: 'sum',
      description: 'The sum of the values',
      credits: 2,
      parameters_schema: {
        type: 'object',
        properties: { values: { type: 'array', items: { type: 'number' } }, fail: { type: 'boolean' } },
        required: ['values'],
        additionalProperties: false,
      },
      runner: { kind: 'http', url: `${vendor.url}/sum`, method: 'POST', timeout_ms: 20_000 },
    });
    signer = (await http('GET', `${stack.server.mainUrl}/supported`)).body.receiptSigner;
    expect(signer).toMatch(/^0x[0-9a-fA-F]{40}$/);
  }, 180_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await vendor?.stop();
    await stack?.stop();
  });

  it("a wallet reads its call's receipt byte for byte, on every read; it is listed; another caller's read is -32602 with the uri", async () => {
    const wallet = '0x' + 'a1'.repeat(20);
    const token = await walletToken(wallet, 50);
    const call = await paidCall(token, 'res-1');
    const txId: string = call.result.structuredContent.transaction_id;
    const bytes = receiptBytes(call.text);
    expect(JSON.parse(bytes)).toEqual(call.result.structuredContent.receipt);

    // The official client: the template, the list, the read.
    const client = await connect(token);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'agent-commerce://runs/{run_id}',
      'agent-commerce://receipts/{transaction_id}',
    ]);
    const { resources } = await client.listResources();
    expect(resources).toEqual([
      expect.objectContaining({ uri: receiptUri(txId), name: txId, mimeType: 'application/json' }),
    ]);
    const read = await client.readResource({ uri: receiptUri(txId) });
    expect(read.contents).toEqual([{ uri: receiptUri(txId), mimeType: 'application/json', text: bytes }]);
    expect(await verifyReceipt(JSON.parse(bytes), { signer, payer: wallet, transaction: `credits:${txId}` })).toEqual({
      ok: true,
      payload: expect.anything(),
    });

    // A second later (a receipt issued at "now" would differ in issuedAt), raw: the same bytes;
    // the transaction id unencoded names the same receipt.
    await new Promise((r) => setTimeout(r, 1100));
    const again = await rpc(url, token, 'resources/read', { uri: receiptUri(txId) });
    expect(again.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    expect(again.result.contents[0].text).toBe(bytes);
    const plain = await rpc(url, token, 'resources/read', { uri: `agent-commerce://receipts/${txId}` });
    expect(plain.result.contents[0].text).toBe(bytes);

    // Not the owner: another wallet, an agent group of any workspace, nobody: -32602, the uri in data.
    const other = await walletToken('0x' + 'a2'.repeat(20), 10);
    const g = await setupGroup(stack.db, { daily: 100, catalogTools: true });
    for (const t of [other, g.token, undefined]) {
      const refused = await rpc(url, t, 'resources/read', { uri: receiptUri(txId) });
      expect(refused.error).toMatchObject({ code: -32602, data: { uri: receiptUri(txId) } });
      expect(refused.text).not.toContain(bytes);
    }
    expect((await rpc(url, other, 'resources/list', {})).result.resources).toEqual([]);

    // Unknown: a key never used, a failed call (nothing charged: no receipt), malformed, too long.
    const failed = await paidCall(token, 'res-fail', [1], { fail: true });
    expect(failed.result.isError).toBe(true);
    const unknown = [
      receiptUri(`purchase:${wallet}:mcp:never`),
      receiptUri(`purchase:${wallet}:mcp:res-fail`),
      'agent-commerce://receipts/%E0%A4%A',
      'agent-commerce://receipts/',
      `agent-commerce://receipts/${'x'.repeat(600)}`,
    ];
    for (const uri of unknown) {
      const refused = await rpc(url, token, 'resources/read', { uri });
      expect(refused.error).toMatchObject({ code: -32602, data: { uri } });
    }
    expect((await client.listResources()).resources.map((r) => r.name)).toEqual([txId]);
    expect((await ledger.balance(wallet)).balance).toBe(48);
  }, 120_000);

  it('an agent group lists its runs, then its receipts, over pages; a group of the same workspace sees neither and reads none', async () => {
    const g = await setupGroup(stack.db, { daily: 1000, catalogTools: true });
    await ledger.grant({ wallet: workspaceAccount(g.workspaceId), credits: 100, creditType: 'admin_grant' });
    const sibling = await sameWorkspaceGroup(g);
    const wf = await addWorkflow(stack.db, g, templateWorkflow('listed'));
    // 48 stored runs: the first page ends the runs with room for two receipts.
    const base = Date.now() - 1_000_000;
    const runs = Array.from({ length: 48 }, (_, i) =>
      runDoc({
        _id: `run_${(0xa000 + i).toString(16).padStart(24, '0')}`,
        workflow_id: wf,
        group_id: g.groupId,
        budget_id: g.budgetId,
        workspace_id: g.workspaceId,
        status: 'completed',
        response_text: 'ok',
        created_at: new Date(base + i * 1000),
      }),
    );
    await stack.db.models.webhookRuns.insertMany(runs);
    const calls = [];
    for (let i = 0; i < 5; i++) calls.push(await paidCall(g.token, `grp-${i}`, [i]));
    const txIds: string[] = calls.map((c) => c.result.structuredContent.transaction_id);
    // Newest first.
    const receipts = [...txIds].reverse();

    const first = await rpc(url, g.token, 'resources/list', {});
    expect(first.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    const names1 = first.result.resources.map((r: { name: string }) => r.name);
    expect(names1).toEqual([...runs.map((r) => r._id).reverse(), receipts[0], receipts[1]]);
    const second = await rpc(url, g.token, 'resources/list', { cursor: first.result.nextCursor });
    expect(second.result.resources.map((r: { name: string }) => r.name)).toEqual(receipts.slice(2));
    expect(second.result.nextCursor).toBeUndefined();
    // The official client walks the same list.
    const all = await (await connect(g.token)).listResources();
    expect(all.resources.map((r) => r.name)).toEqual([...names1, ...receipts.slice(2)]);

    // Every listed receipt reads as its call carried it.
    for (const [i, c] of calls.entries()) {
      const read = await rpc(url, g.token, 'resources/read', { uri: receiptUri(txIds[i]!) });
      expect(read.result.contents[0].text).toBe(receiptBytes(c.text));
    }
    // The sibling group pays from the same workspace account: still none of these are its own.
    expect((await rpc(url, sibling.token, 'resources/list', {})).result.resources).toEqual([]);
    const refused = await rpc(url, sibling.token, 'resources/read', { uri: receiptUri(txIds[0]!) });
    expect(refused.error).toMatchObject({ code: -32602, data: { uri: receiptUri(txIds[0]!) } });

    // A cursor this server did not hand out.
    const forged = Buffer.from(JSON.stringify(['receipt', -1])).toString('base64url');
    for (const cursor of [forged, 'nope'])
      expect((await rpc(url, g.token, 'resources/list', { cursor })).error).toMatchObject({
        code: -32602,
        data: { code: 'invalid_cursor' },
      });
  }, 120_000);
});
