import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TelemetryOptions } from '@temporalio/worker';
import { errors, renderError } from '../shared/platform/errors/index';
import { ids } from '../shared/platform/ids/index';
import { logger } from '../shared/platform/logger/index';
import { metricsText, scrapeAllowed } from '../shared/platform/metrics/index';

export interface WorkerMetrics {
  /** For Runtime.install: the SDK Core's own Prometheus exporter, on a loopback port of its own. */
  telemetryOptions: TelemetryOptions;
  close(): Promise<void>;
}

/** A loopback port free right now (the kernel's pick); the Core exporter binds it a moment later. */
async function loopbackPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function runtimeText(runtimePort: number): Promise<string> {
  try {
    const res = await fetch(`http://127.0.0.1:${runtimePort}/metrics`, { signal: AbortSignal.timeout(2000) });
    if (!res.ok) throw new Error(`answered ${res.status}`);
    return await res.text();
  } catch (err) {
    logger.warn('temporal runtime metrics unavailable', { error: (err as Error).message });
    return '# temporal runtime metrics unavailable\n';
  }
}

export interface WorkerMetricsOptions {
  /** Bind address: loopback unless the operator opens it to a scraper (WORKER_METRICS_HOST). */
  host: string;
  port: number;
  /** METRICS_TOKEN: when set, a scrape without `Authorization: Bearer <token>` is 401, as on the API. */
  token?: string;
  /** Where the 401's help_url points (PUBLIC_BASE_URL), as in the API's error bodies. */
  helpBaseUrl: string;
}

/**
 * One scrape target per worker process: GET /metrics on `port` answers our registry (domain
 * counters of the activities this process ran, process metrics) followed by the Temporal SDK
 * Core's metrics (temporal_*: schedule-to-start latency, task slots, polls per task queue). Core
 * serves those from a Rust HTTP server we cannot share a port with, so it listens on loopback
 * and this server relays it. The same token as the API's /metrics guards it: the figures (credits
 * moved, settlements) are the business's, whichever process counted them.
 */
export async function startWorkerMetrics(o: WorkerMetricsOptions): Promise<WorkerMetrics> {
  const { host, port } = o;
  const runtimePort = await loopbackPort();
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    if (!scrapeAllowed(req.headers.authorization, o.token)) {
      const { status, body } = renderError(
        errors.unauthorized('metrics_token_invalid', 'GET /metrics needs the operator token METRICS_TOKEN'),
        'gateway',
        { requestId: ids.request(), helpBaseUrl: o.helpBaseUrl },
      );
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
      return;
    }
    void Promise.all([metricsText(), runtimeText(runtimePort)]).then(([ours, core]) => {
      res.writeHead(200, { 'Content-Type': ours.contentType, 'Cache-Control': 'no-store' });
      res.end(`${ours.body}\n${core}`);
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  logger.info('worker metrics listening', { host, port });
  return {
    telemetryOptions: {
      metrics: { prometheus: { bindAddress: `127.0.0.1:${runtimePort}`, useSecondsForDurations: true } },
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
