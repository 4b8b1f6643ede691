import { createPublicClient, http } from 'viem';
import { paymentSetup } from '../shared/x402/setup';
import { viemChain } from '../shared/x402/networks';
import { createSettlementActivities } from '../temporal/x402-settlement/activities';
import { SETTLEMENT_QUEUE } from '../temporal/x402-settlement/config';
import type { QueueDefinition } from './queue';

export const settlementsQueue: QueueDefinition = {
  key: 'settlements',
  taskQueue: SETTLEMENT_QUEUE,
  activities: (deps) => {
    const setup = paymentSetup(deps.config.x402);
    if ('disabled' in setup) throw new Error(`the settlements queue needs x402 configured: ${setup.disabled}`);
    const readers = new Map<number, ReturnType<typeof createPublicClient>>();
    return createSettlementActivities({
      models: deps.db.models,
      payments: setup,
      creditExpiryDays: deps.config.creditExpiryDays,
      blockNumber: (chainId) => {
        const url = deps.config.x402.rpcUrls[chainId];
        if (!readers.has(chainId)) readers.set(chainId, createPublicClient({ chain: viemChain(chainId, url), transport: http(url) }));
        return readers.get(chainId)!.getBlockNumber();
      },
    });
  },
};
