export { metricsText, registry } from './registry';
export { httpRequestDuration } from './http';
export { runsFinished, runsStarted } from '../../webhook-runs/metrics';
export { callbackAttempts } from '../../webhook-runs/callback-metrics';
export { recordLedgerEntry } from '../../credits/metrics';
export { settlements } from '../../payments/metrics';
export { recordDependencyError } from './dependencies';
