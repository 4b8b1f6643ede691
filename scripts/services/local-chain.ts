import { deployToken } from '../../shared/payments/chain/deploy-token';
import { DEV_ACCOUNT_INDEX, devAccount, devPrivateKey } from '../../shared/payments/chain/dev-accounts';
import { startAnvil } from './anvil';

export const LOCAL_CHAIN_ID = 84532;
/** What the local token announces in its EIP-712 domain, like USDC on Base Sepolia. */
export const LOCAL_TOKEN = { name: 'USDC', symbol: 'USDC', version: '2' } as const;

export interface RunningLocalChain {
  rpcUrl: string;
  tokenAddress: string;
  /** The service's x402 settings for this chain (dev keys only: they hold nothing real). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** anvil with chain id 84532 and the dev mnemonic, plus our EIP-3009 token deployed on it. */
export async function startLocalChain(opts: { port?: number } = {}): Promise<RunningLocalChain> {
  const anvil = await startAnvil({ port: opts.port ?? 0, chainId: LOCAL_CHAIN_ID });
  try {
    const { address } = await deployToken({ rpcUrl: anvil.rpcUrl, chainId: LOCAL_CHAIN_ID, ...LOCAL_TOKEN });
    return {
      rpcUrl: anvil.rpcUrl,
      tokenAddress: address,
      env: {
        X402_NETWORK_MODE: 'testnet',
        [`X402_RPC_URL_${LOCAL_CHAIN_ID}`]: anvil.rpcUrl,
        X402_PAY_TO: devAccount(DEV_ACCOUNT_INDEX.merchant).address,
        X402_SETTLEMENT_PRIVATE_KEY: devPrivateKey(DEV_ACCOUNT_INDEX.facilitator),
        X402_LOCAL_TOKEN_ADDRESS: address,
        X402_LOCAL_TOKEN_CHAIN_ID: String(LOCAL_CHAIN_ID),
        X402_LOCAL_TOKEN_SYMBOL: LOCAL_TOKEN.symbol,
        X402_LOCAL_TOKEN_NAME: LOCAL_TOKEN.name,
        X402_LOCAL_TOKEN_VERSION: LOCAL_TOKEN.version,
      },
      stop: anvil.stop,
    };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}
