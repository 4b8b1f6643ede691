import { Counter, Histogram } from 'prom-client';
import { registry } from '../platform/metrics/registry';

/** Every POST of a run callback, scheduled or replayed, by what it came to (delivered, retry, failed, stopped, refused). */
export const callbackAttempts = new Counter({
  name: 'webhook_callback_attempts_total',
  help: 'Run callback POSTs by outcome (delivered, retry, failed, stopped, refused) and kind (delivery, replay)',
  labelNames: ['outcome', 'kind'] as const,
  registers: [registry],
});

export const callbackLatency = new Histogram({
  name: 'webhook_callback_attempt_seconds',
  help: 'Run callback POSTs: time to the receiver answer (or the failure), by kind',
  labelNames: ['kind'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});
