// Only the plumbing's own metrics. A capability's metrics live in its folder and register on the
// shared registry when the code that records them loads, so a process exposes what it runs.
export { recordDependencyError } from './dependencies';
export { httpRequestDuration } from './http';
export { metricsText, registry } from './registry';
export { scrapeAllowed } from './scrape-auth';
