import { mkdtempSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import selfsigned from 'selfsigned';

export interface ReceivedCallback {
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
  /** After the head, a body that never ends: one byte every 50 ms until the caller closes the connection. */
  trickle?: boolean;
}

export interface HttpsReceiver {
  /** https://127.0.0.1:<port> */
  origin: string;
  /** A PEM file holding the receiver's self-signed certificate (CALLBACK_CA_FILE). */
  caFile: string;
  received: ReceivedCallback[];
  /** Answers to give, in order; when used up, 200. */
  script(answers: Answer[]): void;
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  /** Connections the receiver has open right now. */
  openConnections(): number;
  close(): Promise<void>;
}

/** A real HTTPS server on 127.0.0.1 with a certificate generated now (selfsigned), recording every POST. */
export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  } as never);
  const dir = mkdtempSync(path.join(tmpdir(), 'receiver-'));
  const caFile = path.join(dir, 'ca.pem');
  writeFileSync(caFile, pems.cert);
  const received: ReceivedCallback[] = [];
  let answers: Answer[] = [];
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body, at: Date.now() });
      const a = answers.shift() ?? { status: 200 };
      setTimeout(() => {
        if (res.destroyed) return;
        if (!a.trickle) return void res.writeHead(a.status, a.headers).end('ok');
        res.writeHead(a.status, a.headers);
        const drip = setInterval(() => res.write('.'), 50);
        res.on('close', () => clearInterval(drip));
      }, a.delayMs ?? 0).unref();
    });
  });
  const sockets = new Set<unknown>();
  server.on('secureConnection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caFile,
    received,
    script: (a) => (answers = [...a]),
    openConnections: () => sockets.size,
    waitFor: async (n, timeoutMs = 30_000) => {
      const until = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`only ${received.length} callbacks arrived`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
