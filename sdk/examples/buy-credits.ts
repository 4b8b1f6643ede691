/**
 * Buying credits with x402 against a running `make dev`, paid by the official x402 client:
 *   npx tsx sdk/examples/buy-credits.ts 0xYourPrivateKey
 * (the wallet needs local USDC first: npm run admin -- chain:mint --to 0xYourAddress --usd 20)
 */
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadDevEnv } from '../../scripts/dev-env';

const BASE = process.env.BASE_URL ?? 'http://localhost:8080';

async function main(): Promise<void> {
  loadDevEnv();
  const key = process.argv[2] as Hex | undefined;
  if (!key) throw new Error('usage: buy-credits.ts 0xPRIVATE_KEY');
  const account = privateKeyToAccount(key);
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account });
  // The local test token is not in the client's default asset list; a real USDC address is.
  const token = process.env.X402_LOCAL_TOKEN_ADDRESS;
  if (token) client.setSpendControls({ allowedAssets: [{ network: 'eip155:84532', asset: token }] });

  const pay = wrapFetchWithPayment(fetch, client);
  const res = await pay(`${BASE}/api/external/credits/purchase`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wallet_address: account.address, credits: 500, payment_method: 'x402', chain_id: 84532, token: 'USDC' }),
  });
  console.log(res.status, JSON.stringify(await res.json(), null, 2));
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
