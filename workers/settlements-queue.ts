import { settlementUseCases } from '../shared/composition/root';
import { paymentSetup } from '../shared/payments/x402/setup';
import { createSettlementActivities } from '../temporal/x402-settlement/activities';
import { SETTLEMENT_QUEUE } from '../temporal/x402-settlement/config';
import { createSweepActivities } from '../temporal/x402-sweep/activities';
import { rootOf } from './deps';
import type { QueueDefinition } from './queue';

export const settlementsQueue: QueueDefinition = {
  key: 'settlements',
  taskQueue: SETTLEMENT_QUEUE,
  unavailable: (config) => {
    const setup = paymentSetup(config.x402);
    return 'disabled' in setup ? `the settlements queue needs x402 configured: ${setup.disabled}` : undefined;
  },
  activities: (deps) => {
    const setup = paymentSetup(deps.config.x402);
    if ('disabled' in setup) throw new Error(`the settlements queue needs x402 configured: ${setup.disabled}`);
    const useCases = settlementUseCases(rootOf(deps), setup);
    return { ...createSettlementActivities(useCases), ...createSweepActivities(useCases) };
  },
};
