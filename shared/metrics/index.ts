export { metricsText, registry } from './registry';
export { httpRequestDuration } from './http';
export { runsFinished, runsStarted } from './runs';
export { callbackAttempts } from './callbacks';
export { recordLedgerEntry } from './credits';
export { settlements } from './settlements';
export { recordDependencyError } from './dependencies';
