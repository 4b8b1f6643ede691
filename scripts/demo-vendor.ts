/**
 * The demo vendor as its own process (`make dev` starts it): DEMO_VENDOR_PORT (8090),
 * DEMO_VENDOR_SECRET (its auth secret), DEMO_VENDOR_RPC_URL (the chain it reads).
 */
import { startDemoVendor } from './services/demo-vendor/server';

async function main() {
  const secret = process.env.DEMO_VENDOR_SECRET;
  const rpcUrl = process.env.DEMO_VENDOR_RPC_URL;
  if (!secret || !rpcUrl) {
    console.error('DEMO_VENDOR_SECRET and DEMO_VENDOR_RPC_URL are required');
    process.exit(78);
  }
  const vendor = await startDemoVendor({ rpcUrl, secret, port: Number(process.env.DEMO_VENDOR_PORT ?? 8090) });
  console.log(`  demo vendor listening on ${vendor.url}`);
  const stop = () => void vendor.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main();
