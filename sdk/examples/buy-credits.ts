/**
 * Buying credits with x402 against a running `make dev`, paid by the official x402 client:
 *   npx tsx sdk/examples/buy-credits.ts 0xYourPrivateKey
 * (the wallet needs local USDC first: npm run admin -- chain:mint --to 0xYourAddress --usd 20)
 */
import type { Hex } from 'viem';
import { loadDevEnv } from '../../scripts/dev-env';
import { AgentClient } from '../src';

const BASE = process.env.BASE_URL ?? 'http://localhost:8080';

async function main(): Promise<void> {
  loadDevEnv();
  const key = process.argv[2] as Hex | undefined;
  if (!key) throw new Error('usage: buy-credits.ts 0xPRIVATE_KEY');
  // The local test token is not in the x402 client's default asset list; a real USDC address is.
  const token = process.env.X402_LOCAL_TOKEN_ADDRESS;
  const agent = new AgentClient({
    baseUrl: BASE,
    account: key,
    x402: { allowedAssets: token ? [{ network: 'eip155:84532', asset: token }] : [] },
  });
  // 402 challenge → the client signs an EIP-3009 authorization → the same request again, paid.
  const bought = await agent.credits.purchase({ credits: 500 });
  console.log(JSON.stringify(bought, null, 2));
}

main().catch((err) => {
  console.error(err.code ? `${err.code}: ${err.message}${err.hint ? `\nhint: ${err.hint}` : ''}` : err.message);
  process.exit(1);
});
