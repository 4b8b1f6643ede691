/**
 * The demo vendor: an ordinary HTTP service with its own auth secret, as a third-party tool
 * vendor would run. POST /tools/<handler> with `{action, parameters, request_id}` and
 * `Authorization: Bearer <secret>`; 200 `{result}` or 4xx `{error}`. `make dev` starts it as a
 * process (scripts/demo-vendor.ts); tests start their own on port 0.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { demoHandlers, HandlerError } from './handlers';

export interface DemoVendor {
  url: string;
  stop(): Promise<void>;
}

const MAX_BODY = 256 * 1024;

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function authorized(req: IncomingMessage, secret: string): boolean {
  const given = Buffer.from(req.headers.authorization ?? '');
  const want = Buffer.from(`Bearer ${secret}`);
  return given.length === want.length && timingSafeEqual(given, want);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new HandlerError('body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startDemoVendor(opts: {
  rpcUrl: string;
  secret: string;
  port?: number;
  host?: string;
}): Promise<DemoVendor> {
  if (opts.secret.length < 16) throw new Error('the demo vendor secret must be at least 16 characters');
  const handlers = demoHandlers(opts.rpcUrl);
  const server = createServer(async (req, res) => {
    try {
      const path = (req.url ?? '/').split('?')[0]!;
      if (req.method === 'GET' && path === '/health')
        return send(res, 200, { status: 'ok', tools: Object.keys(handlers) });
      const match = /^\/tools\/([a-z0-9._]+)$/.exec(path);
      const handler = match ? handlers[match[1]!] : undefined;
      if (req.method !== 'POST' || !handler) return send(res, 404, { error: 'no such tool' });
      if (!authorized(req, opts.secret)) return send(res, 401, { error: 'unauthorized' });
      let body: { parameters?: unknown };
      try {
        body = JSON.parse(await readBody(req));
      } catch {
        return send(res, 400, { error: 'body must be JSON' });
      }
      const params = body.parameters;
      if (params === null || typeof params !== 'object' || Array.isArray(params))
        return send(res, 400, { error: 'parameters must be an object' });
      send(res, 200, { result: await handler(params as Record<string, unknown>) });
    } catch (err) {
      if (err instanceof HandlerError) return send(res, 400, { error: err.message });
      send(res, 502, { error: 'upstream chain unavailable' });
    }
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
