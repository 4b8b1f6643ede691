import http, { type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import {
  keepAliveAgents,
  RefusedTarget,
  ResponseTooLarge,
  safeRequest,
  TimedOut,
} from '../../shared/platform/http/outbound';

/** safeRequest (any method, bounded answer) against a real plain-HTTP server on loopback. */
describe('the shared outbound HTTP module', () => {
  let server: Server;
  let origin: string;
  const seen: Array<{ method: string; url: string; key: string | undefined; port: number }> = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({
        method: req.method!,
        url: req.url!,
        key: req.headers['idempotency-key'] as string | undefined,
        port: req.socket.remotePort!,
      });
      if (req.url!.startsWith('/big')) return res.end('x'.repeat(64 * 1024));
      if (req.url!.startsWith('/slow')) return void setTimeout(() => res.end('late'), 3000);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ url: req.url }));
    });
    // Beyond any stall of this process between two calls: the reuse check below needs the connection kept.
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('GETs with headers and returns the body, query values encoded by URL', async () => {
    const url = new URL(`${origin}/echo`);
    url.searchParams.set('q', 'a b&c=d/é');
    const res = await safeRequest(url.href, {
      method: 'GET',
      headers: { 'idempotency-key': 'run:node' },
      timeoutMs: 20_000,
      maxResponseBytes: 1024,
      allowLoopback: true,
      allowHttp: true,
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ url: '/echo?q=a+b%26c%3Dd%2F%C3%A9' });
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/echo?q=a+b%26c%3Dd%2F%C3%A9', key: 'run:node' });
  });

  it('stops reading past maxResponseBytes', async () => {
    await expect(
      safeRequest(`${origin}/big`, {
        method: 'GET',
        timeoutMs: 20_000,
        maxResponseBytes: 1000,
        allowLoopback: true,
        allowHttp: true,
      }),
    ).rejects.toBeInstanceOf(ResponseTooLarge);
  });

  it('bounds the whole exchange in time', async () => {
    await expect(
      safeRequest(`${origin}/slow`, {
        method: 'GET',
        timeoutMs: 300,
        maxResponseBytes: 1000,
        allowLoopback: true,
        allowHttp: true,
      }),
    ).rejects.toThrow('no answer within 300 ms');
  });

  it('refuses plain http unless allowed, and to loopback only; refuses private addresses', async () => {
    await expect(safeRequest(`${origin}/x`, { method: 'GET', timeoutMs: 1000, allowLoopback: true })).rejects.toThrow(
      'only https',
    );
    await expect(
      safeRequest('http://93.184.215.14/x', { method: 'GET', timeoutMs: 1000, allowLoopback: true, allowHttp: true }),
    ).rejects.toThrow('loopback only');
    await expect(
      safeRequest(`${origin}/x`, { method: 'GET', timeoutMs: 1000, allowHttp: true }),
    ).rejects.toBeInstanceOf(RefusedTarget);
    const resolve = async () => [{ address: '10.0.0.7', family: 4 }];
    await expect(
      safeRequest('https://internal.example/x', { method: 'GET', timeoutMs: 1000, resolve }),
    ).rejects.toMatchObject({ detail: 'internal.example resolves to 10.0.0.7: 10.0.0.7 is a private address' });
  });

  it("calls an operator's own target (a vendor) on any address over kept-alive connections, with the same bounds", async () => {
    const agents = keepAliveAgents();
    try {
      const opts = {
        method: 'POST' as const,
        body: '{"a":1}',
        headers: { 'content-type': 'application/json' },
        timeoutMs: 20_000,
        maxResponseBytes: 1024,
        operatorTarget: agents,
      };
      const first = await safeRequest(`${origin}/vendor`, opts);
      const second = await safeRequest(`${origin}/vendor`, opts);
      expect([first.status, second.status]).toEqual([200, 200]);
      const [a, b] = seen.slice(-2);
      expect(a.port).toBe(b.port); // one connection, reused
      await expect(safeRequest(`${origin}/slow`, { ...opts, timeoutMs: 300 })).rejects.toBeInstanceOf(TimedOut);
      await expect(safeRequest(`${origin}/big`, opts)).rejects.toBeInstanceOf(ResponseTooLarge);
      await expect(safeRequest('ftp://127.0.0.1/x', opts)).rejects.toBeInstanceOf(RefusedTarget);
    } finally {
      agents.http.destroy();
      agents.https.destroy();
    }
  });
  it('sends a request once more on a fresh connection when the server closed the kept-alive one under it, and only then', async () => {
    // A server that answers the first request of each connection (keep-alive) and drops the
    // connection on its second, unanswered: what a vendor closing an idle connection looks like
    // when the close crosses our next request on it.
    const connections: number[] = [];
    const raw = net.createServer((socket) => {
      connections.push(0);
      const i = connections.length - 1;
      socket.on('data', (chunk) => {
        if (!chunk.toString('latin1').includes('\r\n\r\n')) return;
        connections[i] += 1;
        if (connections[i] > 1) return void socket.destroy();
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\nconnection: keep-alive\r\n\r\n{"ok":true}',
        );
      });
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/vendor`;
    const agents = keepAliveAgents();
    try {
      const opts = {
        method: 'POST' as const,
        body: '{}',
        headers: { 'idempotency-key': 'k' },
        timeoutMs: 20_000,
        maxResponseBytes: 1024,
        operatorTarget: agents,
      };
      expect((await safeRequest(url, opts)).status).toBe(200);
      // Reuses the connection, which the server drops: answered on a second, fresh one.
      expect((await safeRequest(url, opts)).status).toBe(200);
      expect(connections).toEqual([2, 1]);
      // A fresh connection dropped is not retried (the server may have acted on the request).
      const dropAll = net.createServer((socket) => socket.on('data', () => socket.destroy()));
      await new Promise<void>((r) => dropAll.listen(0, '127.0.0.1', r));
      try {
        await expect(
          safeRequest(`http://127.0.0.1:${(dropAll.address() as AddressInfo).port}/x`, opts),
        ).rejects.toMatchObject({ code: 'ECONNRESET' });
      } finally {
        await new Promise((r) => dropAll.close(r));
      }
    } finally {
      agents.http.destroy();
      await new Promise((r) => raw.close(r));
    }
  });
  it('ends within its timeout and closes the socket when the server sends its head and then a body that never ends', async () => {
    // A server that answers at once and then keeps its body coming: endless (as fast as it can) or
    // a trickle (one byte now and then, never idle long enough for a socket timeout).
    const closed: number[] = [];
    const open = new Set<net.Socket>();
    const endless = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(16 * 1024, 120);
      const timer = req.url!.startsWith('/trickle')
        ? setInterval(() => res.write('x'), 50)
        : setInterval(() => {
            while (res.write(chunk));
          }, 5);
      res.on('close', () => clearInterval(timer));
    });
    endless.on('connection', (socket) => {
      open.add(socket);
      socket.on('close', () => {
        open.delete(socket);
        closed.push(Date.now());
      });
    });
    await new Promise<void>((r) => endless.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(endless.address() as AddressInfo).port}`;
    const opts = { method: 'POST' as const, body: '{}', allowLoopback: true, allowHttp: true };
    const socketsClosed = async (withinMs: number) => {
      const until = Date.now() + withinMs;
      while (open.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      return open.size;
    };
    try {
      for (const path of ['/endless', '/trickle']) {
        // Head only (a callback): the status is the answer, and the connection ends there.
        const started = Date.now();
        const res = await safeRequest(`${base}${path}`, { ...opts, timeoutMs: 1000, maxResponseBytes: 0 });
        expect(res.status).toBe(200);
        expect(res.body).toHaveLength(0);
        expect(await socketsClosed(1000 - (Date.now() - started) + 200)).toBe(0);
      }
      // A body that is read: the deadline holds until its last byte, and the socket is closed at it.
      const started = Date.now();
      await expect(
        safeRequest(`${base}/trickle`, { ...opts, timeoutMs: 500, maxResponseBytes: 1024 * 1024 }),
      ).rejects.toBeInstanceOf(TimedOut);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(await socketsClosed(200)).toBe(0);
      expect(closed).toHaveLength(3);
    } finally {
      endless.closeAllConnections();
      await new Promise((r) => endless.close(r));
    }
  });
});
