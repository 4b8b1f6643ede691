import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { receiptFromMcpResult } from '../../sdk/src/payments';
import { decodePaymentPayload } from '../../shared/payments/x402/challenge';
import { ToolRepository } from '../../shared/tools/repository';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { proofFrom, proofPayload, rebuildPaymentFromChain } from '../support/public-authorization';
import { startTestStack, TestStack } from '../support/stack';
import { startScriptedVendor } from '../support/vendor';

/**
 * Hostile: a settled x402 authorization is public on chain (transferWithAuthorization's arguments),
 * so anyone can rebuild the payment payload and send it over MCP (`_meta["x402/payment"]`) or REST.
 * It gets the payment's status and receipt, never the paid result (issue 37, item 3).
 */
describe('MCP: a rebuilt public authorization is no credential for the paid result', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  const clients: Client[] = [];
  const invokeUrl = () => `${stack.server.mainUrl}/api/external/tools/vault/actions/open/invoke`;

  async function connect(): Promise<Client> {
    const client = new Client({ name: 'mcp-replay', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.server.mainUrl}/mcp`)));
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    stack = await startTestStack({ workers: true, env: { X402_SETTLE_WAIT_MS: '30000' } });
    vendor = await startScriptedVendor(() => ({
      status: 200,
      body: { secret: `secret-${randomBytes(8).toString('hex')}` },
    }));
    const repo = new ToolRepository(stack.db.models);
    await repo.createProduct({ slug: 'vault', name: 'vault', description: 'A paid secret' });
    await repo.addAction('vault', {
      slug: 'open',
      description: 'A secret, per paid call',
      credits: 2,
      x402_usd: '0.02',
      parameters_schema: { type: 'object', properties: { box: { type: 'integer' } }, additionalProperties: false },
      runner: { kind: 'http', url: `${vendor.url}/open`, method: 'POST', timeout_ms: 20_000 },
    });
  }, 180_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await vendor?.stop();
    await stack?.stop();
  });

  it('rebuilt public authorization over MCP (and REST): status and receipt only; the payer\'s _meta["sign-in-with-x"] gets the result', async () => {
    const payer = new TestPayer();
    await payer.fund(1);
    const args = { box: 7 };
    const mine = await connect();
    const unpaid = await mine.callTool({ name: 'vault__open', arguments: args });
    expect(unpaid.isError).toBe(true);
    const challenge = unpaid.structuredContent as any;
    const payment = await payer.client().createPaymentPayload(challenge);
    const paid = await mine.callTool({ name: 'vault__open', arguments: args, _meta: { 'x402/payment': payment } });
    expect(paid.isError).toBeFalsy();
    const secret = (paid.structuredContent as any).response.secret as string;
    expect(secret).toMatch(/^secret-/);
    const receipt = receiptFromMcpResult(paid as never);
    expect(receipt).toBeDefined();
    const tx = (paid._meta as any)['x402/payment-response'].transaction as string;
    const calls = vendor.calls.length;

    // Another client rebuilds the payment from the chain and sends it over MCP.
    const rebuiltHeader = await rebuildPaymentFromChain(tx, challenge);
    const decoded = decodePaymentPayload(rebuiltHeader);
    if (!decoded.ok) throw new Error(decoded.message);
    const rebuilt = decoded.value;
    const observer = await connect();
    const replay = await observer.callTool({
      name: 'vault__open',
      arguments: args,
      _meta: { 'x402/payment': rebuilt },
    });
    expect(replay.isError).toBeFalsy();
    expect(replay.structuredContent).toMatchObject({
      status: 'settled',
      payment_id: (paid.structuredContent as any).x402.payment_id,
      x402: { transaction: tx, receipt },
    });
    expect((replay.structuredContent as any).response).toBeUndefined();
    expect(JSON.stringify(replay)).not.toContain(secret);
    expect(receiptFromMcpResult(replay as never)).toEqual(receipt);
    // The payer's own payload again, without a proof, is no different.
    const own = await mine.callTool({ name: 'vault__open', arguments: args, _meta: { 'x402/payment': payment } });
    expect(JSON.stringify(own)).not.toContain(secret);

    // The same rebuilt authorization over REST.
    const rest = await http('POST', invokeUrl(), { body: args, headers: { 'x-payment': rebuiltHeader } });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ status: 'settled', x402: { transaction: tx } });
    expect(rest.text).not.toContain(secret);

    // The observer's own sign-in-with-x proof is not the payer's; a malformed one is refused too.
    const stranger = privateKeyToAccount(generatePrivateKey());
    const status = replay.structuredContent as { extensions: Record<string, unknown> };
    const theirs = await observer.callTool({
      name: 'vault__open',
      arguments: args,
      _meta: {
        'x402/payment': rebuilt,
        'sign-in-with-x': proofPayload(await proofFrom(status, stranger, stack.config.publicBaseUrl)),
      },
    });
    expect(theirs).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'siwx_invalid', details: { reason: 'siwx_not_payer' } } },
    });
    expect(JSON.stringify(theirs)).not.toContain(secret);
    const malformed = await observer.callTool({
      name: 'vault__open',
      arguments: args,
      _meta: { 'x402/payment': rebuilt, 'sign-in-with-x': 'not a payload' },
    });
    expect(malformed).toMatchObject({ isError: true, structuredContent: { error: { code: 'siwx_malformed' } } });

    // The payer proves itself beside the payment: the recorded result, nothing called or paid again.
    const proven = await mine.callTool({
      name: 'vault__open',
      arguments: args,
      _meta: {
        'x402/payment': rebuilt,
        'sign-in-with-x': proofPayload(await proofFrom(status, payer.account, stack.config.publicBaseUrl)),
      },
    });
    expect(proven.isError).toBeFalsy();
    expect(proven.structuredContent).toEqual(paid.structuredContent);
    expect(vendor.calls.length).toBe(calls);
    expect(await payer.balance()).toBe(1_000_000n - 20_000n);
  }, 120_000);
});
