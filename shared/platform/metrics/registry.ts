import { collectDefaultMetrics, Registry } from 'prom-client';

/** This process's metrics: the API's on the bearer host's /metrics, a worker's on its WORKER_METRICS_PORT. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** The exposition text and its content type. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
