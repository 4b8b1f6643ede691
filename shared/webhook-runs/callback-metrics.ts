import { Counter } from 'prom-client';
import { registry } from '../platform/metrics/registry';

export const callbackAttempts = new Counter({
  name: 'webhook_callback_attempts_total',
  help: 'Run callback delivery attempts by outcome (delivered, retry, failed)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});
