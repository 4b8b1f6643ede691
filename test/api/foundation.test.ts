import { http } from '../support/http';
import { startTestStack, TestStack } from '../support/stack';

describe('foundation over HTTP against the real store', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('answers health on the bearer host only', async () => {
    const ok = await http('GET', `${stack.server.apiUrl}/health`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ status: 'ok' });
    const onMain = await http('GET', `${stack.server.mainUrl}/health`);
    expect(onMain.status).toBe(404);
  });

  it('echoes a client request id and makes one when absent', async () => {
    const echoed = await http('GET', `${stack.server.apiUrl}/health`, { headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const made = await http('GET', `${stack.server.apiUrl}/health`);
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await http('GET', `${stack.server.apiUrl}/health`, {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(refused.headers.get('x-request-id')).not.toBe('bad id with spaces');
  });

  it('answers unknown routes with 404 JSON in the gateway shape', async () => {
    const res = await http('GET', `${stack.server.mainUrl}/api/external/nope`, {
      headers: { 'x-request-id': 'r-404' },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body).toMatchObject({ error: 'Not Found', error_code: 'route_not_found', request_id: 'r-404' });
    expect(typeof res.body.help_url).toBe('string');
    expect(res.body.help_doc).toBe('docs/errors.md#route_not_found');
  });

  it("serves the page every gateway error's help_url points at, with an anchor per code", async () => {
    const res = await http('GET', `${stack.server.mainUrl}/api/external/nope`);
    const help = new URL(res.body.help_url);
    expect(help.pathname).toBe('/docs/errors');
    expect(help.hash).toBe('#route_not_found');
    for (const host of [stack.server.mainUrl, stack.server.apiUrl]) {
      const page = await fetch(`${host}${help.pathname}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toContain('<section id="route_not_found">');
    }
    const json = await http('GET', `${stack.server.mainUrl}/docs/errors`, { headers: { accept: 'application/json' } });
    expect(json.body.errors).toContainEqual(expect.objectContaining({ code: 'mixed_payment_modes', status: 400 }));
  });

  it('answers malformed JSON with 422 detail on external routes and 400 webhook shape on webhook routes', async () => {
    const ext = await http('POST', `${stack.server.mainUrl}/api/external/credits/balance`, {
      raw: '{"wallet_address": ',
    });
    expect(ext.status).toBe(422);
    expect(ext.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    const hook = await http('POST', `${stack.server.mainUrl}/api/agent-webhooks/w1/trigger`, { raw: '{oops' });
    expect(hook.status).toBe(400);
    expect(hook.body).toMatchObject({ success: false, error: 'invalid_request' });
  });

  it('reports store and temporal reachability on the details page', async () => {
    const res = await http('GET', `${stack.server.apiUrl}/health/details`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', store: 'up', temporal: 'up' });
  });
});
