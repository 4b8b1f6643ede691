import { randomBytes } from 'node:crypto';
import { startDemoVendor } from '../../scripts/services/demo-vendor/server';

/** The project's demo vendor on 127.0.0.1:0, reading the run's local chain, with a fresh secret. */
export async function startTestDemoVendor() {
  const rpcUrl = process.env.X402_RPC_URL_84532;
  if (!rpcUrl) throw new Error('no local chain (global setup sets X402_RPC_URL_84532)');
  const secret = randomBytes(24).toString('hex');
  const vendor = await startDemoVendor({ rpcUrl, secret });
  return { ...vendor, secret, rpcUrl, tokenAddress: process.env.X402_LOCAL_TOKEN_ADDRESS! };
}
