import { bytesToHex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { DEV_MNEMONIC, TESTNET_CHAIN_IDS } from './chains';

/** How many accounts of the public dev mnemonic are refused (anvil prints 10; tools derive more). */
const DEV_ACCOUNTS_CHECKED = 20;
let devKeys: string[] | undefined;

/** The dev mnemonic's private keys, lower-case hex without 0x (derived once, on first use). */
function publicDevKeys(): string[] {
  devKeys ??= Array.from({ length: DEV_ACCOUNTS_CHECKED }, (_, i) => {
    const key = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: i }).getHdKey().privateKey!;
    return bytesToHex(key).slice(2).toLowerCase();
  });
  return devKeys;
}

const LOCAL_HOST = /^(localhost|.*\.localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1?\]|\[::ffff:127\.\d+\.\d+\.\d+\])$/i;

/**
 * What NODE_ENV=production refuses, beyond the schema: keys everyone knows, a test token standing
 * in for a real one on a mainnet, metrics without their token, and public URLs nobody outside
 * this host can reach.
 * Returns one problem per offending variable; never the value itself.
 */
export function productionProblems(
  env: Record<string, unknown>,
  resolved: { publicBaseUrl: string; publicApiUrl: string; mode: string; localTokenChainId?: number },
): string[] {
  const problems: string[] = [];
  const keys = publicDevKeys();
  const mnemonic = DEV_MNEMONIC.replace(/\s+/g, ' ');
  for (const [name, raw] of Object.entries(env)) {
    if (typeof raw !== 'string') continue;
    const value = raw.toLowerCase();
    const hexes = value.match(/[0-9a-f]{64}/g) ?? [];
    if (hexes.some((h) => keys.includes(h)) || value.replace(/\s+/g, ' ').includes(mnemonic)) {
      problems.push(
        `${name}: holds a key of the public development mnemonic (value not shown); use a key of your own in production`,
      );
    }
  }
  if (resolved.localTokenChainId !== undefined) {
    if (resolved.mode === 'mainnet' || !TESTNET_CHAIN_IDS.includes(resolved.localTokenChainId)) {
      problems.push(
        `X402_LOCAL_TOKEN_ADDRESS: a local token override is for local chains and tests, never on a mainnet network (chain ${resolved.localTokenChainId}, mode ${resolved.mode})`,
      );
    }
  }
  if (typeof env.METRICS_TOKEN !== 'string' || env.METRICS_TOKEN === '') {
    // Credits moved and settlements are business figures: no scrape target is left open to whoever reaches it.
    problems.push(
      'METRICS_TOKEN: required in production (GET /metrics on the bearer host and on every worker then wants it as a bearer token); set 16+ random characters and give them to the scraper',
    );
  }
  for (const [name, url] of [
    ['PUBLIC_BASE_URL', resolved.publicBaseUrl],
    ['PUBLIC_API_URL', resolved.publicApiUrl],
  ] as const) {
    if (LOCAL_HOST.test(new URL(url).hostname))
      problems.push(`${name}: must be the public address clients use, not ${new URL(url).host} (set it in production)`);
  }
  return problems;
}
