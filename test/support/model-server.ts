import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ModelRequest {
  body: any;
  headers: http.IncomingHttpHeaders;
  /** Resolves true when the client closed the connection before we answered. */
  aborted: Promise<boolean>;
  /** Whether the answer has been sent. */
  answered: boolean;
}

export interface ModelServer {
  url: string;
  requests: ModelRequest[];
  /** What the next answers do: delay, status, content (default: echo of the last user message). */
  behave(b: Partial<Behaviour>): void;
  /** Resolves when `n` requests have arrived. */
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

interface Behaviour {
  delayMs: number;
  /** A delay per request (overrides delayMs), e.g. slow for one caller's prompts only. */
  delayFor?: (body: any) => number;
  status: number;
  reply: (body: any) => string;
  model: string;
  /** The `usage` block answered, as OpenAI reports it; absent: none. */
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** A real HTTP server speaking the OpenAI chat-completions protocol (POST /v1/chat/completions). */
export async function startModelServer(): Promise<ModelServer> {
  const requests: ModelRequest[] = [];
  let behaviour: Behaviour = {
    delayMs: 0,
    status: 200,
    reply: (b) => `echo: ${b.messages.at(-1).content}`,
    model: 'test-model-1',
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw);
      const b = behaviour;
      let answered = false;
      const aborted = new Promise<boolean>((resolve) => {
        res.on('close', () => resolve(!answered));
      });
      const request: ModelRequest = { body, headers: req.headers, aborted, answered: false };
      requests.push(request);
      const timer = setTimeout(
        () => {
          if (res.destroyed) return;
          answered = true;
          request.answered = true;
          if (b.status !== 200) {
            res
              .writeHead(b.status, { 'content-type': 'application/json' })
              .end(JSON.stringify({ error: { message: 'refused by test' } }));
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              id: 'chatcmpl-test',
              object: 'chat.completion',
              model: b.model,
              choices: [{ index: 0, message: { role: 'assistant', content: b.reply(body) }, finish_reason: 'stop' }],
              ...(b.usage ? { usage: b.usage } : {}),
            }),
          );
        },
        b.delayFor?.(body) ?? b.delayMs,
      );
      res.on('close', () => clearTimeout(timer));
    });
  });
  // Beyond any stall of the test's process, which this server shares (see test/support/vendor.ts).
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    requests,
    behave: (b) => (behaviour = { ...behaviour, ...b }),
    waitForRequests: async (n, timeoutMs = 30_000) => {
      const until = Date.now() + timeoutMs;
      while (requests.length < n) {
        if (Date.now() > until) throw new Error(`only ${requests.length} model requests arrived`);
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
