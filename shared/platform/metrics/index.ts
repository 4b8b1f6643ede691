// Only the plumbing's own metrics. A capability's metrics live in its folder and register on the
// shared registry when the code that records them loads, so a process exposes what it runs.
export { metricsText, registry } from './registry';
export { httpRequestDuration } from './http';
export { recordDependencyError } from './dependencies';
