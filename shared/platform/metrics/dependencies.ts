import { Counter } from 'prom-client';
import { registry } from './registry';

const dependencyErrors = new Counter({
  name: 'dependency_unavailable_total',
  help: 'Requests answered 503 because the store or Temporal was unavailable, by dependency',
  labelNames: ['dependency'] as const,
  registers: [registry],
});

const DEPENDENCY_OF: Record<string, 'store' | 'temporal'> = {
  store_unavailable: 'store',
  store_indexes_failed: 'store',
  workflow_engine_unavailable: 'temporal',
};

/** Counts an error response whose code says the store or Temporal was away; other codes are ignored. */
export function recordDependencyError(code: string): void {
  const dependency = DEPENDENCY_OF[code];
  if (dependency) dependencyErrors.inc({ dependency });
}
