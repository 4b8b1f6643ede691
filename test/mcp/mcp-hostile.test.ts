import { type IncomingHttpHeaders, request } from 'node:http';
import { AccessTokenService } from '../../shared/identity/access-tokens';
import { ToolRepository } from '../../shared/tools/repository';
import { startTestStack, TestStack } from '../support/stack';
import { setupGroup } from '../support/webhook-runs';

/** Messages one client address may send per window here, and a wallet's or group's invokes. */
const PER_CLIENT = 30;
const PER_WALLET = 5;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
}

describe('the MCP server under attack: batches, long unknown names, floods (real stack)', () => {
  let stack: TestStack;
  let port: string;
  let walletToken: string;

  /**
   * One POST /mcp from a loopback address of the caller's choosing (127.0.0.0/8 is all loopback),
   * so each test is its own client address for the per-client limit.
   */
  function post(body: unknown, opts: { from: string; headers?: Record<string, string> }): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          localAddress: opts.from,
          port,
          path: '/mcp',
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...opts.headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            // JSON, or an event stream whose first `data:` line holds the answer.
            const json = /^\s*[[{]/.test(text) ? text : /^data: (.*)$/m.exec(text)?.[1];
            let body: unknown;
            try {
              body = json ? JSON.parse(json) : undefined;
            } catch {
              body = { unparsed: text };
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          });
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  }
  let id = 0;
  const call = (name: string, from: string, extra: { headers?: Record<string, string>; meta?: object } = {}) =>
    post(
      {
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: { name, arguments: {}, ...(extra.meta ? { _meta: extra.meta } : {}) },
      },
      { from, headers: extra.headers },
    );
  const ping = (from: string, headers?: Record<string, string>) =>
    post({ jsonrpc: '2.0', id: ++id, method: 'ping' }, { from, headers });

  /** The store commands `body` makes the API send (it shares this connection), as `<collection>.<method>`. */
  async function commands<T>(body: () => Promise<T>): Promise<{ result: T; sent: string[] }> {
    const sent: string[] = [];
    const listener = (op: { collectionName: string; method: string }) => sent.push(`${op.collectionName}.${op.method}`);
    stack.db.connection.on('operation-start', listener);
    try {
      return { result: await body(), sent };
    } finally {
      stack.db.connection.off('operation-start', listener);
    }
  }

  function expectLimited(res: Answer, limit: number, what: string) {
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32029,
        data: { code: 'rate_limited', status: 429, rate_limit: { limit, window_seconds: 600 } },
      },
    });
    expect(res.body.error.message).toContain(what);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers['retry-after']).toBe(String(res.body.error.data.rate_limit.retry_after_seconds));
  }

  beforeAll(async () => {
    stack = await startTestStack({
      env: {
        MCP_LIMIT_PER_CLIENT: String(PER_CLIENT),
        INVOKE_LIMIT_PER_WALLET: String(PER_WALLET),
        HOT_RATE_WINDOW_SECONDS: '600',
      },
    });
    port = new URL(stack.server.mainUrl).port;
    const repo = new ToolRepository(stack.db.models);
    await repo.createProduct({ slug: 'calc', name: 'calc' });
    await repo.addAction('calc', {
      slug: 'sum',
      credits: 1,
      runner: { kind: 'builtin', handler: 'echo', timeout_ms: 1000 },
    });
    const tokens = new AccessTokenService(stack.db.models);
    walletToken = (await tokens.issue({ wallet: '0x' + 'd1'.repeat(20), createdBy: 'operator' as never })).access_token;
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses a JSON-RPC batch with 400 and -32600 whatever the protocol version (none: the SDK served 2025-03-26 batches), and runs none of it', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'calc__sum', arguments: {} } },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ];
    const eras: Array<Record<string, string>> = [
      {},
      { 'mcp-protocol-version': '2025-03-26' },
      { 'mcp-protocol-version': '2025-06-18' },
      { 'mcp-protocol-version': '2026-07-28' },
    ];
    const { result, sent } = await commands(async () => {
      const answers: Answer[] = [];
      for (const headers of eras) answers.push(await post(batch, { from: '127.0.0.2', headers }));
      answers.push(await post([batch[1]], { from: '127.0.0.2' }));
      return answers;
    });
    for (const res of result) {
      expect([res.status, res.body?.error?.code]).toEqual([400, -32600]);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null });
    }
    // Refused before the SDK dispatched anything: no tool resolved, no product read.
    expect(sent).toEqual([]);
    // One message per request is served as before.
    expect(await post(batch[1], { from: '127.0.0.2' })).toMatchObject({ status: 200, body: { id: 2, result: {} } });
  });

  it('answers an unknown 128-character name without a store read: one lookup in the in-memory catalog index', async () => {
    const from = '127.0.0.3';
    // The first call may read the catalog's version (and build the index); after it the index is warm.
    expect((await call('calc__sum', from)).body.result).toBeDefined();
    // Each name a different set of product slugs (`ab~~…`): the old resolution read every one.
    const long = (i: number) => `${(46_656 + i).toString(36).slice(-3)}${'_'.repeat(125)}`;
    expect(long(0)).toHaveLength(128);
    const { result, sent } = await commands(async () => {
      const answers: Answer[] = [];
      for (let i = 0; i < 15; i++) answers.push(await call(long(i), from));
      answers.push(await call('nope__x', from), await call('calc__nope', from), await call('x'.repeat(129), from));
      return answers;
    });
    expect(sent).toEqual([]);
    for (const res of result)
      expect([res.status, res.body.error?.code, res.body.error?.data?.code]).toEqual([200, -32602, 'tool_not_found']);
  });

  it('limits an unauthenticated flood per client address: 429 in a JSON-RPC error past the limit, before anything runs, while another address is served', async () => {
    const from = '127.0.0.4';
    const served = await Promise.all(Array.from({ length: PER_CLIENT }, (_, i) => call(`flood-${i}__x`, from)));
    expect(served.map((r) => r.status)).toEqual(served.map(() => 200));
    // Past the limit: refused before the body is read, so an x402 payment never reaches verification.
    const payment = { x402Version: 2, accepted: {}, payload: { signature: '0x00' } };
    const { result: refused, sent } = await commands(async () => [
      await call('calc__sum', from, { meta: { 'x402/payment': payment } }),
      await ping(from),
      await ping(from, { authorization: 'Bearer act_' + '0'.repeat(43) }),
    ]);
    for (const res of refused) expectLimited(res, PER_CLIENT, 'MCP messages from one address');
    expect(sent).toEqual([]);
    // Another address is answered as before.
    expect(await ping('127.0.0.5')).toMatchObject({ status: 200, body: { result: {} } });
  });

  it("limits a wallet's and an agent group's messages after authentication (the invoke allowance), each its own", async () => {
    // Every message from another address: the per-client limit stays out of the way.
    let host = 10;
    const next = () => `127.0.1.${host++}`;
    const wallet = { authorization: `Bearer ${walletToken}` };
    for (let i = 0; i < PER_WALLET; i++) expect((await ping(next(), wallet)).status).toBe(200);
    expectLimited(await ping(next(), wallet), PER_WALLET, 'invokes for one wallet');
    const g = await setupGroup(stack.db);
    const group = { authorization: `Bearer ${g.token}` };
    for (let i = 0; i < PER_WALLET; i++) expect((await ping(next(), group)).status).toBe(200);
    expectLimited(await ping(next(), group), PER_WALLET, 'MCP messages for one agent group');
    // Anonymous callers, and another wallet, are not held by either.
    expect((await ping(next())).status).toBe(200);
    const other = await new AccessTokenService(stack.db.models).issue({
      wallet: '0x' + 'd2'.repeat(20),
      createdBy: 'operator' as never,
    });
    expect((await ping(next(), { authorization: `Bearer ${other.access_token}` })).status).toBe(200);
  });

  it('the catalog index is served without a store read while fresh, and a write through the same repository is seen at once', async () => {
    const repo = new ToolRepository(stack.db.models);
    await repo.listedIndex();
    expect((await commands(() => repo.listedIndex())).sent).toEqual([]);
    await repo.createProduct({ slug: 'own-write', name: 'own write' });
    const after = await commands(() => repo.listedIndex());
    expect(after.sent.length).toBeGreaterThan(0);
    expect(after.result.products.map((p) => p.slug)).toContain('own-write');
  });

  it('the name index follows a catalog change made elsewhere within the product cache age (5 s)', async () => {
    const from = '127.0.0.6';
    expect((await call('late__go', from)).body.error?.data?.code).toBe('tool_not_found');
    // Another repository: as another API process or the admin CLI writes the catalog.
    const repo = new ToolRepository(stack.db.models);
    await repo.createProduct({ slug: 'late', name: 'late' });
    await repo.addAction('late', {
      slug: 'go',
      credits: 1,
      runner: { kind: 'builtin', handler: 'echo', timeout_ms: 1000 },
    });
    const added = Date.now();
    let res = await call('late__go', from);
    while (res.body.error?.data?.code === 'tool_not_found' && Date.now() - added < 10_000) {
      await new Promise((r) => setTimeout(r, 400));
      res = await call('late__go', from);
    }
    // A credits-only tool without a token: a tool error, so the name resolved.
    expect(res.body.result).toMatchObject({ isError: true, structuredContent: { error: { code: 'missing_bearer' } } });
    expect(Date.now() - added).toBeLessThan(5_000 + 2_000);
  });
});
