import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import type { Hex, LocalAccount } from 'viem';

/** Debian's chromium (scripts/bootstrap.sh installs it), headless, offline-friendly. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`no chromium at ${CHROMIUM_PATH}: run scripts/bootstrap.sh (apt-get install chromium)`);
  const args = [
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
  ];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args });
}

/**
 * An injected EIP-1193 wallet in every frame of the context (`window.ethereum`), backed by a
 * viem local account in this process: the page asks, Node signs. `calls` records each method.
 */
export async function injectWallet(
  context: BrowserContext,
  account: LocalAccount,
  chainIdHex = '0x2105',
): Promise<{ calls: string[] }> {
  const calls: string[] = [];
  await context.exposeBinding('__testWallet', async (_source, method: string, params: unknown[]) => {
    calls.push(method);
    if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [account.address];
    if (method === 'eth_chainId') return chainIdHex;
    if (method === 'personal_sign') return account.signMessage({ message: { raw: params[0] as Hex } });
    if (method === 'eth_signTypedData_v4') {
      // JSON carries uints as strings or numbers; viem wants bigints for them.
      const typed = JSON.parse(params[1] as string) as {
        types: Record<string, Array<{ name: string; type: string }>>;
        domain: Record<string, unknown>;
        primaryType: string;
        message: Record<string, unknown>;
      };
      const { EIP712Domain: _domain, ...types } = typed.types;
      const message = Object.fromEntries(
        typed.message
          ? Object.entries(typed.message).map(([k, v]) => [
              k,
              /^u?int/.test(types[typed.primaryType]!.find((f) => f.name === k)?.type ?? '') ? BigInt(v as string) : v,
            ])
          : [],
      );
      return account.signTypedData({ domain: typed.domain as never, types, primaryType: typed.primaryType, message });
    }
    throw new Error(`unsupported method ${method}`);
  });
  // A string, not a function: a function's source would carry the TS loader's helpers (tsx's __name).
  await context.addInitScript(
    `window.ethereum = { request: ({ method, params }) => window.__testWallet(method, params || []) };`,
  );
  return { calls };
}
