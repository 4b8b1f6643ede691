import { mintTokens, tokenBalance } from '../../shared/payments/chain/deploy-token';
import { type AdminCommand, POSITIVE, WALLET } from './command';

export const chainCommands: AdminCommand[] = [
  {
    name: 'chain:mint',
    summary: 'local chain only: mints the local test USDC',
    flags: [
      { name: 'to', arg: '0x..', required: true, pattern: WALLET, description: 'the wallet that receives the USDC' },
      { name: 'usd', arg: 'N', required: true, pattern: POSITIVE, description: 'whole dollars to mint' },
    ],
    run: async ({ config }, f) => {
      const local = config.x402.localToken;
      const rpcUrl = local && config.x402.rpcUrls[local.chainId];
      if (!local || !rpcUrl)
        throw new Error(
          'chain:mint needs the local chain (X402_LOCAL_TOKEN_ADDRESS and its X402_RPC_URL_<chainId>), as make dev sets',
        );
      const to = f.need('to') as `0x${string}`;
      const target = { rpcUrl, chainId: local.chainId, token: local.address as `0x${string}` };
      await mintTokens({ ...target, to, amount: BigInt(f.need('usd')) * 1_000_000n });
      return {
        to,
        token: local.address,
        balance_base_units: (await tokenBalance({ ...target, owner: to })).toString(),
      };
    },
  },
];
