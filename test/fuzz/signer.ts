import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PrivateKeyAccount } from 'viem/accounts';
import {
  buildSignedMessage,
  isSignedAction,
  type PathParams,
  type RequestFields,
  signedActionParts,
  signedPayload,
  toolInvokeByIdParts,
  toolInvokeParts,
} from '../../shared/identity/signing';

/** What the fuzzer's hook asks to have signed: the operation's action (or a path-form invoke), its path parameters and body. */
export interface SignRequest {
  action: string;
  path_parameters: PathParams;
  body: RequestFields;
}

/** The message for one request, by the rules of docs/signing.md; throws on inputs no client could sign (a '/' in an id). */
function message(req: SignRequest, wallet: string, sessionNonce: string, requestId: string): string {
  const context = { wallet, sessionNonce, requestId };
  if (isSignedAction(req.action)) {
    const { product, payloadObject } = signedActionParts(req.action, req.body, req.path_parameters);
    return buildSignedMessage({
      ...context,
      kind: 'action',
      action: req.action,
      product,
      payload: signedPayload(payloadObject),
    });
  }
  const p = req.path_parameters;
  const parts =
    p.actionSlug !== undefined
      ? toolInvokeParts(String(p.productSlug), String(p.actionSlug), req.body)
      : toolInvokeByIdParts(String(p.productId), req.body);
  return buildSignedMessage({
    ...context,
    kind: 'path',
    method: parts.method,
    path: parts.path,
    payload: signedPayload(parts.payloadObject),
  });
}

/**
 * A loopback signing service for the fuzzer's Python hooks, so the envelope is built by our own
 * signing code rather than a second implementation: POST /sign {action, path_parameters, body}
 * answers the four envelope fields for the fuzz wallet's session, or 400 when the request
 * cannot be signed (the hook then sends it unsigned). POST /token answers a fresh act_ token, for
 * requests that revoke the token they carry.
 */
export async function startSigner(
  agent: PrivateKeyAccount,
  sessionNonce: () => string,
  mintToken: () => Promise<string>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url === '/token') {
      mintToken().then(
        (token) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token })),
        (err: Error) => res.writeHead(500).end(err.message),
      );
      return;
    }
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      void (async () => {
        try {
          const input = JSON.parse(raw) as SignRequest;
          const requestId = randomUUID();
          const text = message(input, agent.address, sessionNonce(), requestId);
          const signature = await agent.signMessage({ message: text });
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              wallet_address: agent.address,
              session_nonce: sessionNonce(),
              request_id: requestId,
              signature,
            }),
          );
        } catch (err) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: (err as Error).message }));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
