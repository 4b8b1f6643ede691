import { Counter } from 'prom-client';
import { registry } from '../platform/metrics/registry';

export const runsStarted = new Counter({
  name: 'webhook_runs_started_total',
  help: 'Webhook runs a worker moved from queued to running',
  registers: [registry],
});

export const runsFinished = new Counter({
  name: 'webhook_runs_finished_total',
  help: 'Webhook runs that reached a terminal status, by status',
  labelNames: ['status'] as const,
  registers: [registry],
});
