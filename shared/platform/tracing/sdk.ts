/**
 * The OpenTelemetry SDK and the Temporal SDK's interceptors, loaded only when tracing is on
 * (index.ts imports this module dynamically).
 */
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetryWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { TracingConfig } from '../config/index';

/** How long one export to the collector may take; a slow collector must not pile up batches. */
const EXPORT_TIMEOUT_MS = 10_000;

export interface RunningTracing {
  /** Client interceptors: a workflow start is a span whose context travels in the workflow's headers. */
  clientInterceptors: WorkflowClientInterceptor[];
  /** Activity interceptors: each execution a span, child of the workflow's schedule span. */
  activityInterceptors: ActivityInterceptorsFactory[];
  /** The sink through which spans made inside the workflow sandbox reach this process's exporter. */
  sinks: InjectedSinks<{ exporter: OpenTelemetryWorkflowExporter }>;
  /** Sends every finished span now (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

export function startSdk(config: TracingConfig, service: 'api' | 'worker'): RunningTracing {
  const resource = new Resource({ [ATTR_SERVICE_NAME]: config.serviceName ?? `agent-commerce-${service}` });
  const spanProcessor = new BatchSpanProcessor(
    new OTLPTraceExporter({
      url: `${config.endpoint}/v1/traces`,
      headers: config.headers,
      timeoutMillis: EXPORT_TIMEOUT_MS,
    }),
  );
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    spanProcessors: [spanProcessor],
    // No log export: our JSON lines carry the trace id instead.
    logRecordProcessors: [],
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampleRatio) }),
    // traceparent only: baggage would hand whatever a caller put there to vendors and receivers.
    textMapPropagator: new W3CTraceContextPropagator(),
    instrumentations: [],
  });
  sdk.start();
  return {
    clientInterceptors: [new OpenTelemetryWorkflowClientInterceptor()],
    activityInterceptors: [
      (ctx) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
    ],
    sinks: { exporter: makeWorkflowExporter(spanProcessor, resource) },
    flush: () => spanProcessor.forceFlush(),
    shutdown: () => sdk.shutdown(),
  };
}
