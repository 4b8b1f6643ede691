import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import selfsigned from 'selfsigned';

export type VendorMode = 'ok' | '5xx' | 'timeout' | 'reset';

/**
 * The soak's tool vendor: a real HTTP server that answers, fails with 500, answers too late
 * (past the action's timeout) or resets the connection, as `mode` says. It keeps the idempotency
 * key of every 2xx answer it finished writing: a capture the checker finds without one here was
 * charged for a result nobody could have received.
 */
export async function startChaosVendor(lateMs: number) {
  const delivered = new Set<string>();
  let mode: VendorMode = 'ok';
  let calls = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls++;
      const key = String(req.headers['idempotency-key'] ?? '');
      const now = mode;
      if (now === 'reset') return void req.socket.destroy();
      if (now === '5xx') return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"down"}');
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ result: { ok: true, bytes: Buffer.concat(chunks).length } }), () => {
          if (key && !res.destroyed) delivered.add(key);
        });
      };
      if (now === 'timeout') setTimeout(answer, lateMs).unref();
      else answer();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    delivered,
    calls: () => calls,
    set mode(m: VendorMode) {
      mode = m;
    },
    get mode() {
      return mode;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type ChaosVendor = Awaited<ReturnType<typeof startChaosVendor>>;

export interface ReceivedCallback {
  runId: string;
  webhookId: string;
  status: number;
}

/**
 * The soak's callback receiver: real HTTPS with a certificate made now, answering 200, or 503
 * while `failing`. Records each attempt's run id, webhook-id and the status it answered.
 */
export async function startChaosReceiver() {
  const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  } as never);
  const dir = mkdtempSync(path.join(tmpdir(), 'chaos-receiver-'));
  const caFile = path.join(dir, 'ca.pem');
  writeFileSync(caFile, pems.cert);
  const received: ReceivedCallback[] = [];
  let failing = false;
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      let runId = '';
      try {
        runId = (JSON.parse(body) as { data?: { run_id?: string }; run_id?: string }).data?.run_id ?? '';
      } catch {
        /* recorded without a run id */
      }
      if (!runId) runId = /"run_id":"([^"]+)"/.exec(body)?.[1] ?? '';
      const status = failing ? 503 : 200;
      received.push({ runId, webhookId: String(req.headers['webhook-id'] ?? ''), status });
      res.writeHead(status).end(failing ? 'down' : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caFile,
    received,
    set failing(f: boolean) {
      failing = f;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }).finally(() => rmSync(dir, { recursive: true, force: true })),
  };
}
export type ChaosReceiver = Awaited<ReturnType<typeof startChaosReceiver>>;
