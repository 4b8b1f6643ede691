/**
 * A first signed request, end to end against a running `make dev`:
 *   npx tsx sdk/examples/first-request.ts
 * Creates an agent identity and asks for its credit balance; the SDK opens the session and signs
 * the EIP-191 envelope (docs/signing.md) by itself.
 */
import { AgentClient } from '../src';

const BASE = process.env.BASE_URL ?? 'http://localhost:8080';

async function main(): Promise<void> {
  // 1. An identity, no login. Keep the key: it is shown once.
  const wallet = await AgentClient.createIdentity(BASE);
  console.log('agent address:', wallet.evmAddress);

  // 2. A client for that wallet; signed calls get a session nonce and a fresh request id each.
  const agent = new AgentClient({ baseUrl: BASE, account: wallet.evmPrivateKey });
  const balance = await agent.credits.balance();
  console.log('balance:', JSON.stringify(balance));
}

main().catch((err) => {
  console.error(err.code ? `${err.code}: ${err.message}${err.hint ? `\nhint: ${err.hint}` : ''}` : err.message);
  process.exit(1);
});
