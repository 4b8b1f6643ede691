/**
 * A first signed request, end to end against a running `make dev`:
 *   npx tsx sdk/examples/first-request.ts
 * Creates an agent identity, opens a session, and asks for the credit balance with an
 * EIP-191 signed envelope built by sdk/agent-client.ts.
 */
import { signRequest } from '../agent-client';

const BASE = process.env.BASE_URL ?? 'http://localhost:8080';

async function post(path: string, body: unknown): Promise<any> {
  const res = await fetch(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function main(): Promise<void> {
  // 1. An identity, no login. Keep the key: it is shown once.
  const { data: wallet } = await post('/api/external/agentaddress', undefined);
  console.log('agent address:', wallet.evmAddress);

  // 2. A session nonce for that wallet.
  const { data: session } = await post('/api/external/auth/session', { wallet_address: wallet.evmAddress });

  // 3. A signed call: the envelope carries wallet, nonce, a fresh request id and the signature.
  const envelope = await signRequest({ account: wallet.evmPrivateKey, sessionNonce: session.session_nonce, action: 'balance' });
  const balance = await post('/api/external/credits/balance', envelope);
  console.log('balance:', JSON.stringify(balance));
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
