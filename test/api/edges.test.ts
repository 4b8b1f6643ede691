import { request } from 'node:http';
import net from 'node:net';
import { TestAgent } from '../support/agent';
import { http } from '../support/http';
import { startTestStack, TestStack } from '../support/stack';

const OPERATOR_TOKEN = 'op-token-0123456789abcdef';

/** Opens a raw socket, sends `head` and never finishes it; resolves with what the server said and when it hung up. */
function slowClient(port: number, head: string): Promise<{ closedAfterMs: number; reply: string }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
    let reply = '';
    socket.on('data', (d) => (reply += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ closedAfterMs: Date.now() - started, reply }));
    setTimeout(() => {
      socket.destroy();
      reject(new Error('the server kept a slow client for 15 s'));
    }, 15_000).unref();
  });
}

/** fetch refuses a GET with a body; node:http sends one. */
function getWithBody(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'GET', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('fail fast at the edges', () => {
  let stack: TestStack;
  let main: string;
  let api: string;
  beforeAll(async () => {
    stack = await startTestStack({
      env: {
        HTTP_HEADERS_TIMEOUT_MS: '1000',
        HTTP_REQUEST_TIMEOUT_MS: '2000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
        HEALTH_DETAILS_TOKEN: OPERATOR_TOKEN,
        AUTH_SESSION_LIMIT_PER_CLIENT: '3',
        AUTH_SESSION_LIMIT_PER_WALLET: '2',
        ACCESS_TOKEN_LIMIT_PER_CLIENT: '100',
        ACCESS_TOKEN_LIMIT_PER_WALLET: '1',
        AUTH_RATE_WINDOW_SECONDS: '600',
      },
    });
    main = stack.server.mainUrl;
    api = stack.server.apiUrl;
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('cuts off a slowloris client that never finishes its headers, on both hosts', async () => {
    for (const url of [main, api]) {
      const port = Number(new URL(url).port);
      const cut = await slowClient(port, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n');
      expect(cut.closedAfterMs).toBeLessThan(5000);
      expect(cut.reply).toMatch(/^HTTP\/1\.1 408/);
    }
    // A client that sends its headers but never its body is cut off by the request timeout.
    const port = Number(new URL(main).port);
    const body = await slowClient(
      port,
      'POST /api/external/auth/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"wal',
    );
    expect(body.closedAfterMs).toBeLessThan(6000);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const port = Number(new URL(api).port);
    const idle = await slowClient(port, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    expect(idle.reply).toMatch(/^HTTP\/1\.1 200/);
    expect(idle.closedAfterMs).toBeLessThan(3000);
  });

  it('/health answers ok whatever body or content type it gets', async () => {
    const variants: Array<{ raw: string; headers: Record<string, string> }> = [
      { raw: '{broken', headers: { 'content-type': 'application/json' } },
      { raw: 'x'.repeat(300_000), headers: { 'content-type': 'application/json' } },
      { raw: '<a/>', headers: { 'content-type': 'application/xml' } },
      { raw: 'abc', headers: { 'content-type': 'application/json', 'content-encoding': 'br' } },
    ];
    for (const opts of variants) {
      const res = await http('POST', `${api}/health`, opts);
      expect([res.status, res.body]).toEqual([200, { status: 'ok' }]);
      const get = await getWithBody(`${api}/health`, opts.raw, opts.headers);
      expect([get.status, JSON.parse(get.text)]).toEqual([200, { status: 'ok' }]);
    }
  });

  it('/health/details shows no worker identity without the operator token, and all of it with the token', async () => {
    await stack.db.models.pings.create({
      _id: 'ping-edges',
      recorded_at: new Date(),
      worker: '12345@secret-host.internal',
    });
    const anonymous = await http('GET', `${api}/health/details`);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toEqual({
      status: 'ok',
      store: 'up',
      temporal: 'up',
      last_ping: { recorded_at: expect.any(String) },
    });
    expect(anonymous.text).not.toMatch(/secret-host|12345/);

    const operator = await http('GET', `${api}/health/details`, {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    expect(operator.body).toMatchObject({
      detail: 'full',
      store: 'up',
      store_state: 'up',
      last_ping: { worker: '12345@secret-host.internal' },
    });

    const wrong = await http('GET', `${api}/health/details`, {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}x` },
    });
    expect([wrong.status, wrong.body.error_code]).toEqual([401, 'health_token_invalid']);
  });

  it('echoes the caller x-request-id in gateway errors, made safe, never a random id', async () => {
    const plain = await http('POST', `${main}/api/external/credits/balance`, {
      body: {},
      headers: { 'x-request-id': 'trace-42' },
    });
    expect(plain.body.request_id ?? plain.headers.get('x-request-id')).toBe('trace-42');
    const odd = await http('GET', `${main}/api/external/nowhere`, { headers: { 'x-request-id': 'my id/with spaces' } });
    expect(odd.body.request_id).toBe('my_id_with_spaces');
    expect(odd.headers.get('x-request-id')).toBe('my_id_with_spaces');
    const long = await http('GET', `${main}/api/external/nowhere`, { headers: { 'x-request-id': 'a'.repeat(500) } });
    expect(long.body.request_id).toBe('a'.repeat(128));
  });

  it('identity creation with a malformed body answers 400 in the gateway shape', async () => {
    const res = await http('POST', `${main}/api/external/agentaddress`, {
      raw: '{not json',
      headers: { 'x-request-id': 'id-bad-body' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'Bad Request',
      error_code: 'invalid_request',
      request_id: 'id-bad-body',
      help_url: expect.stringContaining('#invalid_request'),
    });
  });

  it('rate limits sessions per wallet and per client, with Retry-After and the gateway shape', async () => {
    const wallet = '0x' + '7'.repeat(40);
    const session = () =>
      http('POST', `${main}/api/external/auth/session`, {
        body: { wallet_address: wallet },
        headers: { 'x-request-id': 'rl-s' },
      });
    expect((await session()).status).toBe(200);
    expect((await session()).status).toBe(200);
    const perWallet = await session();
    expect(perWallet.status).toBe(429);
    expect(perWallet.body).toMatchObject({
      error: 'Too Many Requests',
      error_code: 'rate_limited',
      request_id: 'rl-s',
      rate_limit: { limit: 2, window_seconds: 600 },
    });
    expect(Number(perWallet.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(perWallet.headers.get('retry-after')).toBe(String(perWallet.body.rate_limit.retry_after_seconds));

    // The client address has used 3 of its 3 by now: another wallet is refused too.
    const perClient = await http('POST', `${main}/api/external/auth/session`, {
      body: { wallet_address: '0x' + '8'.repeat(40) },
    });
    expect([perClient.status, perClient.body.rate_limit.limit]).toEqual([429, 3]);
  });

  it('rate limits workflow session starts and fetches per wallet and per client, 429 with Retry-After', async () => {
    const other = await startTestStack({
      keepDatabase: true,
      env: {
        WORKFLOW_START_LIMIT_PER_WALLET: '2',
        WORKFLOW_START_LIMIT_PER_CLIENT: '3',
        WORKFLOW_FETCH_LIMIT_PER_WALLET: '2',
        WORKFLOW_FETCH_LIMIT_PER_CLIENT: '3',
        WORKFLOW_RATE_WINDOW_SECONDS: '600',
      },
    });
    try {
      const a = new TestAgent(other.server.mainUrl);
      const b = new TestAgent(other.server.mainUrl);
      await a.startSession();
      await b.startSession();
      const id = 'wf_absent';
      for (const [what, action] of [
        ['start', 'workflow_start'],
        ['fetch', 'workflow_fetch'],
      ] as const) {
        const call = (agent: TestAgent) => agent.call(`/api/external/workflows/${id}/${what}`, action, {}, id);
        expect((await call(a)).status).toBe(404);
        expect((await call(a)).status).toBe(404);
        const perWallet = await call(a);
        expect([perWallet.status, perWallet.body.error_code, perWallet.body.rate_limit?.limit]).toEqual([
          429,
          'rate_limited',
          2,
        ]);
        expect(perWallet.headers.get('retry-after')).toBe(String(perWallet.body.rate_limit.retry_after_seconds));
        // The address has used its 3 by now: another wallet from it is refused before its signature is checked.
        const perClient = await call(b);
        expect([perClient.status, perClient.body.error_code, perClient.body.rate_limit?.limit]).toEqual([
          429,
          'rate_limited',
          3,
        ]);
      }
    } finally {
      await other.stop();
    }
  });

  it('rate limits access-token minting per wallet once the wallet proved it signed', async () => {
    const other = await startTestStack({ keepDatabase: true, env: { ACCESS_TOKEN_LIMIT_PER_WALLET: '1' } });
    try {
      const agent = new TestAgent(other.server.mainUrl);
      await agent.startSession();
      expect((await agent.call('/api/external/auth/access-token', 'access_token', { label: 'a' })).status).toBe(200);
      const second = await agent.call('/api/external/auth/access-token', 'access_token', { label: 'b' });
      expect([second.status, second.body.error_code, second.body.rate_limit?.limit]).toEqual([429, 'rate_limited', 1]);
      // A stranger naming the wallet without its signature is refused on the signature, and uses up nothing.
      const stranger = await http('POST', `${other.server.mainUrl}/api/external/auth/access-token`, {
        body: {
          wallet_address: agent.wallet,
          session_nonce: agent.sessionNonce,
          request_id: 'x-1',
          signature: '0x' + '1'.repeat(130),
        },
      });
      expect(stranger.status).toBe(401);
    } finally {
      await other.stop();
    }
  });
});
