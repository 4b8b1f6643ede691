import { Counter } from 'prom-client';
import { registry } from '../platform/metrics/registry';

export const settlements = new Counter({
  name: 'x402_settlements_total',
  help: 'x402 settlement activity results: completed, failed (final), attempt_failed (retried by Temporal)',
  labelNames: ['result'] as const,
  registers: [registry],
});
