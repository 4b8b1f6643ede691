/**
 * OpenTelemetry tracing, one trace per request: the API's HTTP span, the Temporal client's start,
 * the workflow, its activities, and the outbound calls they make (vendors, callbacks) carrying a
 * W3C `traceparent`. Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set; off means nothing of the SDK
 * is loaded, no interceptor is installed and every hook here is one boolean test.
 */
import {
  type Attributes,
  context,
  isSpanContextValid,
  type Link,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { TracingConfig } from '../config/index';
import type { RunningTracing } from './sdk';

export type { RunningTracing };

const TRACER = 'agent-commerce';
let running: RunningTracing | undefined;

/** Whether this process exports traces (startTracing ran with an endpoint configured). */
export function tracingOn(): boolean {
  return running !== undefined;
}

/** The process's tracing once started, for the Temporal worker's interceptors and sinks. */
export function runningTracing(): RunningTracing | undefined {
  return running;
}

/**
 * Starts the SDK when `config` is set (once per process; a second call answers the first). The
 * SDK and its exporters are loaded here, only then: a process without tracing never requires them.
 */
export function startTracing(config: TracingConfig | undefined, service: 'api' | 'worker'): RunningTracing | undefined {
  if (!config) return undefined;
  if (!running) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing is on (see above)
    const { startSdk } = require('./sdk') as typeof import('./sdk');
    running = startSdk(config, service);
  }
  return running;
}

/** Sends what is buffered and stops; tracing is off afterwards. */
export async function stopTracing(): Promise<void> {
  const r = running;
  running = undefined;
  await r?.shutdown();
}

/** The active trace's id (32 hex), or null outside one. */
export function currentTraceId(): string | null {
  const sc = trace.getActiveSpan()?.spanContext();
  return sc && isSpanContextValid(sc) ? sc.traceId : null;
}

/**
 * The server span of one HTTP request: `run` runs the request's handling inside it, `end` names
 * and ends it. A public edge starts its own trace: a caller's `traceparent` is kept as a link,
 * never as the parent, so no client chooses the trace id our records (run_metadata.trace_id) carry.
 */
export function startServerSpan(
  method: string,
  headers: Record<string, string | string[] | undefined>,
): { run(fn: () => void): void; end(route: string, status: number): void } {
  const caller = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, headers));
  const links: Link[] = caller && isSpanContextValid(caller) ? [{ context: caller }] : [];
  const span = trace
    .getTracer(TRACER)
    .startSpan(
      method,
      { kind: SpanKind.SERVER, root: true, links, attributes: { 'http.request.method': method } },
      ROOT_CONTEXT,
    );
  let ended = false;
  return {
    run: (fn) => context.with(trace.setSpan(ROOT_CONTEXT, span), fn),
    end: (route, status) => {
      if (ended) return;
      ended = true;
      span.updateName(`${method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

/**
 * A client span around one outbound HTTP exchange; `send` gets the headers that carry it
 * (`traceparent`) to the other side. Only the target's host and port are recorded: a URL's path
 * and query can hold a receiver's secret.
 */
export async function inClientSpan<T extends { status: number }>(
  method: string,
  target: URL,
  send: (traceHeaders: Record<string, string>) => Promise<T>,
): Promise<T> {
  const attributes: Attributes = {
    'http.request.method': method,
    'server.address': target.hostname,
    'server.port': Number(target.port) || (target.protocol === 'http:' ? 80 : 443),
    'url.scheme': target.protocol.replace(/:$/, ''),
  };
  return trace.getTracer(TRACER).startActiveSpan(method, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    try {
      const res = await send(carrier);
      span.setAttribute('http.response.status_code', res.status);
      if (res.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
      return res;
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).name });
      span.setAttribute('error.type', (err as Error).name);
      throw err;
    } finally {
      span.end();
    }
  });
}
