import type { AddressInfo } from 'node:net';
import express, { type Express, Router } from 'express';
import Joi from 'joi';
import { errorHandler } from '../../api/http/middleware/error-handler';
import { DECLARED, mountOperations } from '../../api/http/operations/mount';
import { ERROR_SCHEMAS } from '../../api/http/operations/shapes';
import type { Operation } from '../../api/http/operations/types';
import { createApiApp, createMainApp } from '../../api/http/server';
import { answersChecked, http } from '../support/http';
import { localDocument, localOperations, newAjv, ResponseValidator } from '../support/openapi';
import { startTestStack, type TestStack } from '../support/stack';

/** Every path and method of the published interface, listed here so that none can drop out of /openapi.json unnoticed. */
const SPEC_OPERATIONS = [
  'POST /api/external/agentaddress',
  'POST /api/external/auth/session',
  'POST /api/external/jobs/list',
  'POST /api/external/jobs/{jobId}/reserve',
  'POST /api/external/jobs/{jobId}/status',
  'POST /api/external/jobs/{jobId}/complete',
  'POST /api/external/jobs/{jobId}/workflow/create',
  'PUT /api/external/jobs/{jobId}/workflow/{workflowId}',
  'POST /api/external/jobs/{jobId}/workflow/{workflowId}/publish',
  'POST /api/external/credits/balance',
  'POST /api/external/credits/purchase',
  'GET /api/external/tools',
  'POST /api/external/tools/{productId}/invoke',
  'POST /api/external/tools/{productSlug}/actions/{actionSlug}/invoke',
  'GET /api/external/workflows',
  'GET /api/external/workflows/{workflowId}',
  'POST /api/external/workflows/{workflowId}/start',
  'POST /api/external/workflows/{workflowId}/fetch',
  'POST /api/external/workflows/{workflowId}/end',
  'POST /api/external/workflows/active',
  'POST /api/external/workflow-schedules/{scheduleId}/advance',
  'POST /api/external/workflow-schedules/{scheduleId}/release',
  'POST /api/external/workflow-schedules/claim',
  'GET /api/external/workflow-schedules/due',
  'POST /api/agent-webhooks/{workflowId}/trigger',
  'GET /api/agent-webhooks/runs/{runId}',
  'POST /api/agent-webhooks/runs/{runId}/cancel',
  'GET /health',
  'GET /embed.js',
  'GET /embed/{workflowId}',
  'GET /embed/bundle/{bundleId}',
  'GET /embed/product/{productId}',
  'GET /credits/balance',
  'GET /credits/history',
  'POST /issues/report',
  'GET /products/fetch',
  'POST /products/purchase',
];
const BEARER_HOST_PATHS = [
  '/health',
  '/credits/balance',
  '/credits/history',
  '/issues/report',
  '/products/fetch',
  '/products/purchase',
];

interface Layer {
  route?: { path: string; stack: unknown[] } & Record<symbol, Operation | undefined>;
  handle?: { stack?: Layer[] };
}

/** Every express route reachable from a router stack (sub-routers included). */
function routesOf(stack: Layer[]): NonNullable<Layer['route']>[] {
  return stack.flatMap((layer) =>
    layer.route ? [layer.route] : layer.handle?.stack ? routesOf(layer.handle.stack) : [],
  );
}
const appRoutes = (app: Express) => routesOf((app as unknown as { router: { stack: Layer[] } }).router.stack);

const fill = (path: string, params: Record<string, unknown> = {}) =>
  path.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => encodeURIComponent(String(params[name] ?? 'x')));

describe('operations are declared once', () => {
  const local = localOperations();
  const main = createMainApp(local.deps, local.services);
  const api = createApiApp(local.deps, local.services);

  it('mounts no route without a declaration, on either host', () => {
    for (const app of [main, api]) {
      const routes = appRoutes(app);
      expect(routes.length).toBeGreaterThan(5);
      expect(routes.filter((r) => !r[DECLARED]).map((r) => r.path)).toEqual([]);
    }
  });

  it('sees a route mounted directly (the check can fail)', () => {
    const router = Router();
    router.get('/direct', (_req, res) => res.end());
    router.use(mountOperations(local.docs));
    const routes = routesOf(router.stack as unknown as Layer[]);
    expect(routes.filter((r) => !r[DECLARED]).map((r) => r.path)).toEqual(['/direct']);
  });

  it('mounts every declaration, each once, on its host', () => {
    const mounted = (app: Express) => appRoutes(app).map((r) => r[DECLARED]!.id);
    const onMain = mounted(main);
    const onApi = mounted(api);
    for (const op of local.all) {
      const expected = { main: [1, 0], bearer: [0, 1], both: [1, 1] }[op.host];
      expect([op.id, onMain.filter((id) => id === op.id).length, onApi.filter((id) => id === op.id).length]).toEqual([
        op.id,
        ...expected,
      ]);
    }
    expect(new Set(local.all.map((o) => o.id)).size).toBe(local.all.length);
  });

  it('checks declared headers in the mount: any case, unknown ones pass, values converted, handler-validated operations too', async () => {
    const declared = (validation: 'mount' | 'handler'): Operation => ({
      id: `headers_${validation}`,
      method: 'get',
      path: `/${validation}`,
      host: 'main',
      auth: [{ kind: 'none' }],
      tag: 'Test',
      summary: 'echoes the checked headers',
      request: {
        headers: Joi.object({
          'X-Page': Joi.number().integer().min(1),
          'idempotency-key': Joi.string().pattern(/^[a-z]+$/),
        }),
      },
      validation,
      responses: { 200: { description: 'the headers' } },
      errorStatuses: [422],
      errors: 'gateway',
      examples: [],
      handler: (_req, res) => {
        res.json(res.locals.headers);
      },
    });
    const app = express();
    app.use(mountOperations([declared('mount'), declared('handler')]), errorHandler('http://localhost'));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const path of ['/mount', '/handler']) {
        const fine = await http('GET', `${base}${path}`, {
          headers: { 'x-page': '3', 'IDEMPOTENCY-KEY': 'abc', 'x-unknown': 'anything' },
        });
        expect([path, fine.status, fine.body]).toEqual([path, 200, { 'X-Page': 3, 'idempotency-key': 'abc' }]);
        const bad = await http('GET', `${base}${path}`, { headers: { 'X-PAGE': '0', 'idempotency-key': 'A B' } });
        expect([path, bad.status, bad.body.detail?.map((d: { loc: string[] }) => d.loc)]).toEqual([
          path,
          422,
          [
            ['header', 'X-Page'],
            ['header', 'idempotency-key'],
          ],
        ]);
        const empty = await http('GET', `${base}${path}`, { headers: { 'x-page': '' } });
        expect([path, empty.status, empty.body.detail?.[0]?.loc]).toEqual([path, 422, ['header', 'X-Page']]);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("documents the mount's 422 `detail[]` answer wherever it checks a declared header (handler-validated operations too)", () => {
    const doc = localDocument();
    const checked = local.all.filter(
      (op) => op.request?.headers && (op.errors === 'gateway' || op.errors === 'validation'),
    );
    expect(checked.map((op) => op.id)).toEqual(expect.arrayContaining(['getPaymentStatus']));
    for (const op of checked) {
      const answer = doc.paths[op.path]?.[op.method]?.responses?.['422'] as
        { content?: Record<string, { schema?: { $ref?: string } }> } | undefined;
      expect([op.id, answer?.content?.['application/json']?.schema?.$ref]).toEqual([
        op.id,
        '#/components/schemas/ValidationError',
      ]);
    }
  });

  it('refuses an empty value of every number query parameter (page_size=): the document says integer, none means "default"', () => {
    const numbers: string[] = [];
    for (const op of local.all) {
      const keys = (op.request?.query?.describe() as { keys?: Record<string, { type: string }> } | undefined)?.keys;
      for (const [name, key] of Object.entries(keys ?? {})) {
        if (key.type !== 'number') continue;
        numbers.push(`${op.id} ${name}`);
        const { error } = op.request!.query!.validate({ [name]: '' }, { convert: true });
        expect([op.id, name, error?.details[0]?.type]).toEqual([op.id, name, 'number.base']);
      }
    }
    // The catalog fetch checks its query itself (pageRequest, with the same schema): test/api/bearer-tools.test.ts.
    expect(numbers).toEqual(expect.arrayContaining(['fetchProducts page_size', 'listTools page_size']));
  });

  it('gives every declaration an example whose request and response match its own schemas and the document', () => {
    const validator = new ResponseValidator(localDocument());
    const missing = local.all.filter((op) => op.examples.length === 0).map((op) => op.id);
    expect(missing).toEqual([]);
    for (const op of local.all) {
      for (const ex of op.examples) {
        const label = `${op.id} example "${ex.name}"`;
        const parts: Array<[Joi.Schema | undefined, unknown]> = [
          [op.request?.params, ex.request.params ?? {}],
          [op.request?.query, ex.request.query ?? {}],
          [op.request?.headers?.unknown(true), ex.request.headers ?? {}],
          [op.request?.body, ex.request.body ?? {}],
        ];
        for (const [schema, value] of parts) {
          const error = schema?.validate(value, { abortEarly: false }).error;
          if (error) throw new Error(`${label}: request ${error.message}`);
        }
        const { status, body } = ex.response;
        if (typeof body === 'string') continue;
        const declared = op.responses[status]?.body;
        const schema =
          declared ??
          (op.errors === 'html'
            ? undefined
            : op.errors === 'gateway' && status === 422
              ? ERROR_SCHEMAS.validation
              : ERROR_SCHEMAS[op.errors]);
        const error = schema?.validate(body).error;
        if (error) throw new Error(`${label}: response ${error.message}`);
        validator.check(op.method, `http://localhost${fill(op.path, ex.request.params)}`, {
          status,
          contentType: 'application/json',
          body,
          text: JSON.stringify(body),
        });
      }
    }
  });
});

describe('the OpenAPI document', () => {
  const doc = localDocument();

  it('is OpenAPI 3.1 with both servers, the security schemes, and the signed envelope described where its credentials travel', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers.map((s: { url: string }) => s.url)).toHaveLength(2);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(
      expect.arrayContaining(['accessToken', 'agentGroupToken', 'budgetBearer', 'x402']),
    );
    // The envelope is in the body, so no HTTP security scheme claims it: signed operations name their action instead.
    expect(doc.info.description).toMatch(/EIP-191/);
    expect(doc.info.description).toMatch(/RFC 8785/);
    const balance = doc.paths['/api/external/credits/balance'].post;
    expect(balance['x-signed-action']).toEqual({ action: 'balance', product: '-' });
    expect(balance.security).toEqual([{}]);
    expect(doc.components.securitySchemes.x402.description).toMatch(/402/);
  });

  it('covers every path of the interface spec, bearer-host paths with the bearer server only', () => {
    const absent = SPEC_OPERATIONS.filter((entry) => {
      const [method, path] = entry.split(' ') as [string, string];
      return !doc.paths[path]?.[method.toLowerCase()];
    });
    expect(absent).toEqual([]);
    for (const path of BEARER_HOST_PATHS) expect(doc.paths[path].servers).toEqual([doc.servers[1]]);
    expect(doc.paths['/api/external/jobs/list'].servers).toEqual([doc.servers[0]]);
    expect(doc.paths['/openapi.json'].servers).toBeUndefined();
  });

  it('says a method a path does not serve is 405 with Allow: every operation but those mounted for every method', () => {
    expect(doc.info.description).toMatch(/## Methods[\s\S]*405 `method_not_allowed`/);
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (method === 'servers' || path === '/health') continue;
        const refused = op.responses['405'];
        if (!refused?.headers?.Allow || !refused.content) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(missing).toEqual([]);
    // /health answers any method: documented under each, no 405.
    expect(doc.paths['/health'].trace ?? doc.paths['/health'].get.responses['405']).toBeUndefined();
    // /mcp serves POST only; its refusal is a JSON-RPC error like the transport's own.
    expect(Object.keys(doc.paths['/mcp']).filter((k) => k !== 'servers')).toEqual(['post']);
    const mcp405 = doc.paths['/mcp'].post.responses['405'].content['application/json'].schema;
    expect(mcp405.required).toEqual(expect.arrayContaining(['jsonrpc', 'error']));
    expect(doc.paths['/products/fetch'].get.responses['405'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/GatewayError',
    });
    expect(doc.paths['/embed/bundle/{bundleId}'].get.responses['405'].content).toHaveProperty('text/html');
  });

  it('resolves every $ref, declares every path parameter, names unique operations and holds schemas ajv compiles', () => {
    const refs: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string') refs.push(x);
          else walk(x);
        }
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(0);
    const resolve = (ref: string) =>
      ref
        .slice(2)
        .split('/')
        .reduce<any>((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    expect(refs.filter((r) => !r.startsWith('#/') || resolve(r) === undefined)).toEqual([]);

    const ids: string[] = [];
    const ajv = newAjv();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (method === 'servers') continue;
        ids.push(op.operationId);
        const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        const declared = op.parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name);
        expect([path, method, declared.sort()]).toEqual([path, method, names.sort()]);
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
        const schemas = [
          ...op.parameters.map((p: any) => p.schema),
          ...Object.values<any>(op.requestBody?.content ?? {}).map((c) => c.schema),
          ...Object.values<any>(op.responses).flatMap((r) => Object.values<any>(r.content ?? {}).map((c) => c.schema)),
        ];
        for (const schema of schemas) ajv.compile({ ...schema, components: doc.components });
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('links to operations that exist, with their path parameters and body fields, from fields the answer has', () => {
    const resolve = (node: any): any =>
      node?.$ref
        ? resolve(
            node.$ref
              .slice(2)
              .split('/')
              .reduce((n: any, k: string) => n?.[k], doc),
          )
        : node;
    /** The schema at a JSON pointer through `properties` (and the branches of anyOf/oneOf/allOf). */
    const at = (schema: any, pointer: string[]): any => {
      const s = resolve(schema);
      if (pointer.length === 0) return s;
      const branches = [s, ...(s?.anyOf ?? []), ...(s?.oneOf ?? []), ...(s?.allOf ?? [])].map(resolve);
      for (const b of branches) if (b?.properties?.[pointer[0]]) return at(b.properties[pointer[0]], pointer.slice(1));
      return undefined;
    };
    const byId = new Map<string, { path: string; op: any }>();
    for (const [path, item] of Object.entries<any>(doc.paths))
      for (const [method, op] of Object.entries<any>(item))
        if (method !== 'servers') byId.set(op.operationId, { path, op });
    const problems: string[] = [];
    let links = 0;
    for (const { path, op } of byId.values()) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        for (const [name, link] of Object.entries<any>(response.links ?? {})) {
          links += 1;
          const where = `${op.operationId} ${status} ${name}`;
          const target = byId.get(link.operationId);
          if (!target) {
            problems.push(`${where}: no operation ${link.operationId}`);
            continue;
          }
          const targetParams = target.op.parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name);
          const expressions: string[] = [];
          for (const [param, expr] of Object.entries<string>(link.parameters ?? {})) {
            if (!targetParams.includes(param))
              problems.push(`${where}: ${link.operationId} has no path parameter ${param}`);
            expressions.push(expr);
          }
          const bodySchema = target.op.requestBody?.content?.['application/json']?.schema;
          for (const [field, value] of Object.entries<unknown>(link.requestBody ?? {})) {
            if (!at(bodySchema, [field])) problems.push(`${where}: ${link.operationId}'s body has no field ${field}`);
            if (typeof value === 'string' && value.startsWith('$')) expressions.push(value);
          }
          for (const expr of expressions) {
            const fromBody = /^\$response\.body#\/(.+)$/.exec(expr);
            const fromPath = /^\$request\.path\.(.+)$/.exec(expr);
            const answer = response.content?.['application/json']?.schema;
            if (fromBody && !at(answer, fromBody[1].split('/')))
              problems.push(`${where}: the answer has no ${fromBody[1]}`);
            else if (fromPath && !path.includes(`{${fromPath[1]}}`))
              problems.push(`${where}: ${path} has no {${fromPath[1]}}`);
            else if (!fromBody && !fromPath) problems.push(`${where}: unsupported expression ${expr}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(links).toBeGreaterThanOrEqual(8);
  });

  it('rejects a response that does not match (the client check can fail)', () => {
    const validator = new ResponseValidator(doc);
    const base = 'http://localhost';
    expect(() =>
      validator.check('GET', `${base}/health`, {
        status: 200,
        contentType: 'application/json',
        body: { status: 1 },
        text: '{"status":1}',
      }),
    ).toThrow(/health .*status 200/);
    expect(() =>
      validator.check('POST', `${base}/api/external/auth/session`, {
        status: 200,
        contentType: 'application/json',
        body: { success: true, data: {} },
        text: '{}',
      }),
    ).toThrow(/openSession/);
    expect(() =>
      validator.check('GET', `${base}/nowhere`, {
        status: 404,
        contentType: 'application/json',
        body: { nope: true },
        text: '{}',
      }),
    ).toThrow(/no operation/);
    expect(
      validator.check('POST', `${base}/api/external/workflows/active`, {
        status: 401,
        contentType: 'application/json',
        body: { error: 'Unauthorized', message: 'm', error_code: 'c', request_id: 'r', help_url: 'u', help_doc: 'd' },
        text: '{}',
      }),
    ).toMatch(/activeWorkflowSessions/);
  });
});

describe('served', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers /openapi.json on both hosts, as built from the declarations', async () => {
    for (const base of [stack.server.mainUrl, stack.server.apiUrl]) {
      const res = await http('GET', `${base}/openapi.json`);
      expect(res.status).toBe(200);
      expect(res.body.openapi).toBe('3.1.0');
      expect(Object.keys(res.body.paths).sort()).toEqual(Object.keys(localDocument().paths).sort());
    }
  });

  it('renders /docs from our own host (no CDN) and keeps /docs/errors and /docs/schedules', async () => {
    for (const base of [stack.server.mainUrl, stack.server.apiUrl]) {
      const page = await http('GET', `${base}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      const urls = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(urls.length).toBeGreaterThanOrEqual(4);
      expect(urls.filter((u) => !u.startsWith('/docs/assets/'))).toEqual([]);
      for (const u of urls) {
        const res = await fetch(`${base}${u}`);
        expect([u, res.status]).toEqual([u, 200]);
        expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
      }
      const init = await http('GET', `${base}/docs/assets/init.js`);
      expect(init.text).toContain("url: '/openapi.json'");
      const bundle = await fetch(`${base}/docs/assets/swagger-ui-bundle.js`);
      expect(bundle.headers.get('content-type')).toMatch(/javascript/);
      expect((await http('GET', `${base}/docs/errors`, { headers: { accept: 'application/json' } })).status).toBe(200);
    }
    expect((await http('GET', `${stack.server.mainUrl}/docs/schedules`)).status).toBe(200);
  });

  it("checks the answers of the stack's hosts against the document", async () => {
    const before = answersChecked();
    const res = await http('POST', `${stack.server.mainUrl}/api/external/auth/session`, {
      body: { wallet_address: 'not an address' },
    });
    expect(res.status).toBe(422);
    const unknown = await http('GET', `${stack.server.apiUrl}/no/such/path`);
    expect(unknown.status).toBe(404);
    expect(answersChecked()).toBe(before + 2);
  });
});
