/**
 * The workflow side of tracing, bundled only into a tracing worker's workflow bundle
 * (workers/workflow-bundle.ts): the workflow run is a span, and each activity, local activity and
 * child workflow it starts is a span whose context travels in the command's headers.
 *
 * Not the SDK's whole set: its inbound signal, update and query interceptors wrap each handler in
 * extra promise steps, so a handler finishes a few microtasks later than without them, and code
 * that asks allHandlersFinished() (a session's continue-as-new) takes another path on replay than
 * it took when the history was recorded without tracing (a nondeterminism error; the replay test
 * of every recorded history shows it). Handlers are therefore not traced; the run they serve is.
 */
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

export const interceptors: WorkflowInterceptorsFactory = () => {
  const inbound = new OpenTelemetryInboundInterceptor();
  return {
    inbound: [{ execute: (input, next) => inbound.execute(input, next) }],
    outbound: [new OpenTelemetryOutboundInterceptor()],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};
