import http from 'node:http';

export interface Reply {
  status: number;
  text: string;
}

/**
 * One request to a loopback URL over `agent` (keep-alive), its whole answer as text. A JSON body
 * is sent when `body` is given. With `timeoutMs`, a request left unanswered that long fails.
 */
export function request(
  agent: http.Agent,
  url: string,
  method: string,
  body?: string,
  timeoutMs?: number,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders =
      body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    const req = http.request(url, { agent, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    if (timeoutMs !== undefined)
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed while idle (its keep-alive timeout passed, e.g. during a
      // long signing step on a busy machine): the request never reached it, so send it again on a new one.
      if (req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE'))
        request(agent, url, method, body, timeoutMs).then(resolve, reject);
      else reject(err);
    });
    req.end(body);
  });
}
