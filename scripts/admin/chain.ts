import { mintTokens, tokenBalance } from '../../shared/chain/deploy-token';
import { POSITIVE, WALLET, type AdminCommand } from './command';

export const chainCommands: AdminCommand[] = [
  {
    name: 'chain:mint',
    usage: '--to 0x.. --usd N',
    summary: 'local chain only: mints the local test USDC',
    run: async ({ config }, f) => {
      const local = config.x402.localToken;
      const rpcUrl = local && config.x402.rpcUrls[local.chainId];
      if (!local || !rpcUrl) throw new Error('chain:mint needs the local chain (X402_LOCAL_TOKEN_ADDRESS and its X402_RPC_URL_<chainId>), as make dev sets');
      const to = f.need('to', WALLET) as `0x${string}`;
      const target = { rpcUrl, chainId: local.chainId, token: local.address as `0x${string}` };
      await mintTokens({ ...target, to, amount: BigInt(f.need('usd', POSITIVE)) * 1_000_000n });
      return { to, token: local.address, balance_base_units: (await tokenBalance({ ...target, owner: to })).toString() };
    },
  },
];
