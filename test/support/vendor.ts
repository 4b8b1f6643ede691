import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface VendorCall {
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export type VendorBehaviour = (
  call: VendorCall,
) => Promise<{ status: number; body: unknown; delayMs?: number }> | { status: number; body: unknown; delayMs?: number };

/** A real HTTP vendor on 127.0.0.1:0 whose answer each test scripts; it records every call. */
export async function startScriptedVendor(behaviour: VendorBehaviour) {
  const calls: VendorCall[] = [];
  let current = behaviour;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const call: VendorCall = {
        path: req.url ?? '/',
        headers: req.headers,
        body: text ? JSON.parse(text) : undefined,
      };
      calls.push(call);
      const answer = await current(call);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body));
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  // The callers keep connections alive (the tool invoker's pool). Node's default 5 s would let a
  // stall of this process (the vendor runs in the test's own) close a pooled socket just as a call
  // reuses it: "vendor unreachable: socket hang up" (seen under load in x402-tool-calls.test.ts).
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    set(next: VendorBehaviour) {
      current = next;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
