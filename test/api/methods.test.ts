import { request } from 'node:http';
import { localDocument, matchPaths, ResponseValidator } from '../support/openapi';
import { startTestStack, type TestStack } from '../support/stack';

interface Answer {
  status: number;
  allow: string | undefined;
  type: string;
  text: string;
  body: any;
}

/**
 * One request through node:http, any method (fetch refuses TRACE), checked against the document as the
 * suite's `http` helper checks its answers: a refused method against its path's 405 response.
 */
function send(method: string, url: string, opts: { headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<Answer>((resolve, reject) => {
    // With the length stated: node's client sends a TRACE or GET body unframed otherwise.
    const length = opts.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(opts.body)) };
    const req = request(url, { method, headers: { ...opts.headers, ...length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        const type = String(res.headers['content-type'] ?? '');
        try {
          validator.check(method, url, { status: res.statusCode!, contentType: type, body, text });
          resolve({ status: res.statusCode!, allow: res.headers.allow, type, text, body });
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    req.once('error', reject);
    req.end(opts.body);
  });
}
const validator = new ResponseValidator(localDocument());

const fill = (path: string) => path.replace(/\{[A-Za-z0-9_]+\}/g, 'x');
const JSON_BODY = { 'content-type': 'application/json' };

describe('a method a path does not serve: 405 with Allow, before anything else', () => {
  let stack: TestStack;
  let main: string;
  let api: string;
  beforeAll(async () => {
    stack = await startTestStack();
    main = stack.server.mainUrl;
    api = stack.server.apiUrl;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('TRACE /mcp is refused before the MCP transport (it answered 500): 405, Allow: POST, a JSON-RPC error', async () => {
    // The fuzzer's case (issue 43): a token, a JSON-RPC body, TRACE.
    const res = await send('TRACE', `${main}/mcp`, {
      headers: { ...JSON_BODY, authorization: 'Bearer act_not_a_token' },
      body: '{"jsonrpc": "2.0", "id": 1, "method": "ping"}',
    });
    expect([res.status, res.allow]).toEqual([405, 'POST']);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message: expect.stringMatching(/TRACE/),
        data: { code: 'method_not_allowed', status: 405 },
      },
    });
  });

  it('every method but POST on /mcp is the same 405 (no GET stream, no DELETE of a session); OPTIONS lists POST', async () => {
    for (const method of ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'QUERY']) {
      const res = await send(method, `${main}/mcp`, { headers: { accept: 'application/json, text/event-stream' } });
      expect([method, res.status, res.allow]).toEqual([method, 405, 'POST']);
      if (method !== 'HEAD') expect(res.body.error.data.code).toBe('method_not_allowed');
    }
    const options = await send('OPTIONS', `${main}/mcp`);
    expect([options.status, options.allow]).toEqual([200, 'POST']);
  });

  it("answers in the path's error shape: gateway, tool, webhook, an HTML page", async () => {
    const gateway = await send('PATCH', `${main}/api/external/credits/balance`);
    expect([gateway.status, gateway.allow]).toEqual([405, 'POST']);
    expect(gateway.body).toMatchObject({
      error: 'Method Not Allowed',
      error_code: 'method_not_allowed',
      help_doc: 'docs/errors.md#method_not_allowed',
    });
    const tool = await send('GET', `${main}/api/external/tools/p1/invoke`);
    expect([tool.status, tool.allow]).toEqual([405, 'POST']);
    expect(tool.body).toMatchObject({ success: false, code: 'method_not_allowed' });
    const webhook = await send('DELETE', `${main}/api/agent-webhooks/runs/run_1`);
    expect([webhook.status, webhook.allow]).toEqual([405, 'GET, HEAD']);
    expect(webhook.body).toMatchObject({ success: false, error: 'method_not_allowed' });
    const page = await send('PUT', `${main}/embed/bundle/bnd_1`);
    expect([page.status, page.allow, page.type]).toEqual([405, 'GET, HEAD', expect.stringMatching(/^text\/html/)]);
    const bearer = await send('PATCH', `${api}/products/fetch`);
    expect([bearer.status, bearer.allow, bearer.body.error_code]).toEqual([405, 'GET, HEAD', 'method_not_allowed']);
  });

  it('comes before credentials, the body parser and the handler', async () => {
    // No token (the bearer check would answer 401), a body that is not JSON (the parser would answer 422).
    const noToken = await send('DELETE', `${api}/credits/balance`, { headers: JSON_BODY, body: '{"oops' });
    expect([noToken.status, noToken.allow]).toEqual([405, 'GET, HEAD']);
    const badBody = await send('PUT', `${main}/api/external/jobs/list`, { headers: JSON_BODY, body: '{"oops' });
    expect([badBody.status, badBody.allow]).toEqual([405, 'POST']);
    // HEAD where only POST is served: refused too (no body).
    const head = await send('HEAD', `${api}/products/purchase`);
    expect([head.status, head.allow, head.text]).toEqual([405, 'POST', '']);
  });

  it('matches paths as express routes them (any case, a trailing slash) and leaves unknown paths and the other host to 404', async () => {
    const cased = await send('PATCH', `${main}/API/External/credits/balance/`);
    expect([cased.status, cased.allow]).toEqual([405, 'POST']);
    expect((await send('TRACE', `${main}/api/external/nope`)).status).toBe(404);
    // /health and /products/fetch are the bearer host's.
    expect((await send('PATCH', `${main}/products/fetch`)).status).toBe(404);
    expect((await send('PATCH', `${api}/api/external/credits/balance`)).status).toBe(404);
  });

  it('keeps what served methods answered: HEAD with GET, OPTIONS from express, /health any method', async () => {
    expect((await send('HEAD', `${api}/health/details`)).status).toBe(200);
    const options = await send('OPTIONS', `${main}/api/external/tools`);
    expect([options.status, options.allow]).toEqual([200, 'GET, HEAD']);
    for (const method of ['TRACE', 'QUERY', 'PATCH', 'OPTIONS']) {
      const res = await send(method, `${api}/health`);
      expect([method, res.status, res.body]).toEqual([method, 200, { status: 'ok' }]);
    }
  });

  it("refuses TRACE, QUERY and an undocumented method on every declared path of both hosts, Allow as the document's methods", async () => {
    const doc = localDocument();
    const onHost = (item: any, host: 'main' | 'bearer') =>
      !item.servers || /bearer host/.test(item.servers[0].description) === (host === 'bearer');
    const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
    const checked: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const host of ['main', 'bearer'] as const) {
        if (!onHost(item, host)) continue;
        const url = `${host === 'main' ? main : api}${fill(path)}`;
        // Every template the request path falls under, as express tries them all (/workflows/x: /workflows/{id} only).
        const items = matchPaths(doc, new URL(url).pathname)
          .map((t) => doc.paths[t])
          .filter((i) => onHost(i, host));
        const served = new Set(items.flatMap((i) => METHODS.filter((m) => i[m])));
        const refusing = items.every((i) => Object.values<any>(i).some((op) => op?.responses?.['405']));
        const unserved = METHODS.find((m) => !served.has(m));
        for (const method of ['TRACE', 'QUERY', ...(unserved ? [unserved.toUpperCase()] : [])]) {
          const res = await send(method, url, { headers: JSON_BODY, body: '{}' });
          if (!refusing) {
            // A path mounted for every method (/health) serves it.
            expect([path, method, res.status]).toEqual([path, method, 200]);
            continue;
          }
          const allow = [...served, ...(served.has('get') ? ['head'] : [])].map((m) => m.toUpperCase()).sort();
          expect([path, method, res.status, res.allow]).toEqual([path, method, 405, allow.join(', ')]);
          checked.push(`${method} ${path}`);
        }
      }
    }
    expect(checked.length).toBeGreaterThan(150);
  });
});
