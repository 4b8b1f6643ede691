import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  service: string;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}

const value = (v: AnyValue) =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue;
const attrs = (kvs: KeyValue[] = []) => Object.fromEntries(kvs.map((kv) => [kv.key, value(kv.value)]));

/**
 * A real OTLP/HTTP trace receiver on 127.0.0.1:0 (what a collector's `otlphttp` receiver serves):
 * POST /v1/traces with the JSON encoding of ExportTraceServiceRequest, which
 * @opentelemetry/exporter-trace-otlp-http sends (ids as hex). Anything else is refused, so an
 * exporter speaking another encoding fails the test instead of being silently ignored.
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || req.headers['content-type'] !== 'application/json') {
        refused.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attrs(rs.resource?.attributes)['service.name']);
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || null,
              name: s.name,
              kind: s.kind,
              service,
              attributes: attrs(s.attributes),
              links: (s.links ?? []).map((l: { traceId: string; spanId: string }) => ({
                traceId: l.traceId,
                spanId: l.spanId,
              })),
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    refused,
    /** The spans of one trace once `ready` holds for them, polling until `timeoutMs`. */
    async waitForTrace(traceId: string, ready: (spans: ReceivedSpan[]) => boolean, timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const trace = spans.filter((s) => s.traceId === traceId);
        if (ready(trace)) return trace;
        if (Date.now() > until)
          throw new Error(`trace ${traceId} incomplete: ${trace.map((s) => s.name).join(', ') || 'no spans'}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type OtlpReceiver = Awaited<ReturnType<typeof startOtlpReceiver>>;
