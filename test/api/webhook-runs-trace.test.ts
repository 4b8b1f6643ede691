import { PassThrough } from 'node:stream';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { Worker } from '@temporalio/worker';
import winston from 'winston';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { logger } from '../../shared/platform/logger/index';
import { runningTracing } from '../../shared/platform/tracing/index';
import { ToolRepository } from '../../shared/tools/repository';
import { workflowBundle } from '../../workers/workflow-bundle';
import { type HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver';
import { startTestStack, type TestStack } from '../support/stack';
import { startScriptedVendor } from '../support/vendor';
import { addWorkflow, type GroupSetup, setupGroup, trigger, waitForRun } from '../support/webhook-runs';

const SERVER = 2;
const CLIENT = 3;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

/** The chain of spans from `span` up to its root, through the parents this trace holds. */
function ancestry(span: ReceivedSpan, trace: ReceivedSpan[]): ReceivedSpan[] {
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  const chain = [span];
  for (let s = span; s.parentSpanId;) {
    const parent = byId.get(s.parentSpanId);
    if (!parent) throw new Error(`${s.name}'s parent ${s.parentSpanId} never arrived`);
    chain.push(parent);
    s = parent;
  }
  return chain;
}

describe('one trace per paid webhook run, received by a real OTLP/HTTP receiver', () => {
  let otlp: OtlpReceiver;
  let receiver: HttpsReceiver;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let stack: TestStack;
  let g: GroupSetup;
  let wf: string;
  const lines: Record<string, unknown>[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => lines.push(JSON.parse(chunk.toString('utf8'))));
  const logTransport = new winston.transports.Stream({ stream: logStream });
  const logWas = { silent: logger.silent, level: logger.level, transports: [...logger.transports] };

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    receiver = await startHttpsReceiver();
    vendor = await startScriptedVendor((call) => ({
      status: 200,
      body: { words: String((call.body as any)?.parameters?.text ?? '').split(' ').length },
    }));
    stack = await startTestStack({
      workers: true,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        CALLBACK_ALLOW_LOOPBACK: 'true',
        CALLBACK_CA_FILE: receiver.caFile,
      },
    });
    const tools = new ToolRepository(stack.db.models);
    await tools.createProduct({ slug: 'words', name: 'word_counter', description: 'Counts words' });
    await tools.addAction('words', {
      slug: 'count',
      credits: 5,
      x402_usd: null,
      parameters_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      runner: { kind: 'http', url: `${vendor.url}/count`, method: 'POST', timeout_ms: 60_000 },
    });
    g = await setupGroup(stack.db);
    await new LedgerStore(stack.db.models).grant({
      wallet: `ws:${g.workspaceId}`,
      credits: 100,
      creditType: 'admin_grant',
    });
    wf = await addWorkflow(stack.db, g, {
      name: 'count words',
      nodes: [
        { id: 'count', type: 'tool', product: 'words', action: 'count', parameters: { text: '{{prompt}}' } },
        { id: 'say', type: 'template', template: '{{nodes.count.output.words}} words' },
      ],
      edges: [{ from: 'count', to: 'say' }],
    });
    // Every line the process writes, into `lines` only (not the console).
    Object.assign(logger, { silent: false, level: 'debug' });
    logger.clear().add(logTransport);
  }, 180_000);
  afterAll(async () => {
    logger.clear();
    for (const t of logWas.transports) logger.add(t);
    Object.assign(logger, { silent: logWas.silent, level: logWas.level });
    await stack?.stop();
    await Promise.all([otlp?.close(), receiver?.close(), vendor?.stop()]);
  });

  it('runs from the trigger request through the workflow, its activities, the vendor call and the callback', async () => {
    const res = await trigger(stack.server.mainUrl, g.token, wf, {
      prompt: 'one two three',
      callback_url: `${receiver.origin}/hook`,
    });
    // 200 when the run ended within the trigger's wait, else 202.
    expect([200, 202]).toContain(res.status);
    const runId = res.body.data.run.run_id;
    await stack.temporal.client.workflow.getHandle(runId).result();
    const run = await waitForRun(stack.server.mainUrl, runId, g.token, 60_000, (r) => r.callback_status !== 'pending');
    expect(run).toMatchObject({ status: 'completed', response_text: '3 words', callback_status: 'delivered' });

    // The run's record names its trace.
    const traceId: string = run.run_metadata.trace_id;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);

    // The vendor and the callback receiver were each handed the same trace.
    const vendorParent = TRACEPARENT.exec(String(vendor.calls.at(-1)!.headers.traceparent));
    expect(vendorParent?.[1]).toBe(traceId);
    const callback = receiver.received.find((r) => r.body.includes(runId))!;
    const callbackParent = TRACEPARENT.exec(String(callback.headers.traceparent));
    expect(callbackParent?.[1]).toBe(traceId);
    expect(callback.body).toContain(`"trace_id":"${traceId}"`);
    // No baggage travels to third parties.
    expect(vendor.calls.at(-1)!.headers.baggage).toBeUndefined();

    await runningTracing()!.flush();
    const named = (spans: ReceivedSpan[], name: string) => spans.find((s) => s.name === name);
    const trace = await otlp.waitForTrace(traceId, (spans) =>
      [
        'StartWorkflow:webhookRun',
        'RunWorkflow:webhookRun',
        'RunActivity:runToolNode',
        'RunActivity:attemptDelivery',
      ].every((n) => named(spans, n)),
    );
    expect(otlp.refused).toEqual([]);

    // The trigger request is the root of everything that followed.
    const root = trace.find((s) => s.kind === SERVER)!;
    expect(root).toMatchObject({
      name: 'POST /api/agent-webhooks/:workflowId/trigger',
      parentSpanId: null,
      attributes: expect.objectContaining({ 'http.response.status_code': res.status }),
    });
    const rootOf = (s: ReceivedSpan) => ancestry(s, trace).at(-1);
    for (const span of trace) expect(rootOf(span)).toBe(root);

    // The order of the chain: request → start → run → schedule → execution → the vendor's HTTP call.
    const vendorCall = trace.find((s) => s.spanId === vendorParent![2])!;
    expect(vendorCall).toMatchObject({
      kind: CLIENT,
      attributes: expect.objectContaining({ 'server.port': Number(new URL(vendor.url).port) }),
    });
    expect(ancestry(vendorCall, trace).map((s) => s.name)).toEqual([
      'POST',
      'RunActivity:runToolNode',
      'StartActivity:runToolNode',
      'RunWorkflow:webhookRun',
      'StartWorkflow:webhookRun',
      'POST /api/agent-webhooks/:workflowId/trigger',
    ]);
    const callbackCall = trace.find((s) => s.spanId === callbackParent![2])!;
    expect(ancestry(callbackCall, trace).map((s) => s.name)).toEqual([
      'POST',
      'RunActivity:attemptDelivery',
      'StartActivity:attemptDelivery',
      'RunWorkflow:webhookRun',
      'StartWorkflow:webhookRun',
      'POST /api/agent-webhooks/:workflowId/trigger',
    ]);
    // The record's writes (local activities) are spans of the run too.
    for (const name of ['StartActivity:startRun', 'RunActivity:startRun'])
      expect(ancestry(named(trace, name)!, trace).map((s) => s.name)).toContain('RunWorkflow:webhookRun');
    // Where to go in the Temporal UI: the workflow id and run id ride on the workflow's spans.
    const start = named(trace, 'StartWorkflow:webhookRun')!;
    expect(start.attributes).toMatchObject({ temporalWorkflowId: runId, run_id: expect.any(String) });
    expect(named(trace, 'RunWorkflow:webhookRun')!.attributes).toMatchObject({
      workflowId: runId,
      runId: start.attributes.run_id,
    });

    // Log lines written inside the trace carry its id: the API's request line and the worker's.
    const ours = lines.filter((l) => l.trace_id === traceId);
    expect(ours.find((l) => l.message === 'request' && String(l.path).endsWith('/trigger'))).toBeDefined();
    expect(ours.filter((l) => l.activity_type || l.workflow_id === runId).length).toBeGreaterThan(0);

    // Tracing can be turned off (or on) under running executions: a history recorded with it
    // replays on a worker without it, and on one with it.
    const history = await stack.temporal.client.workflow.getHandle(runId).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history);
    const replayed = new InMemorySpanExporter();
    await Worker.runReplayHistory(
      {
        workflowBundle: await workflowBundle({ traced: true }),
        sinks: { exporter: makeWorkflowExporter(new SimpleSpanProcessor(replayed), Resource.empty()) },
      },
      history,
    );
    expect(replayed.getFinishedSpans()).toEqual([]);
  }, 180_000);

  it('starts its own trace at the edge: a caller traceparent is a link, not the parent', async () => {
    const callerTrace = 'a'.repeat(32);
    const linked = await fetch(`${stack.server.mainUrl}/api/agent-webhooks/${wf}/trigger`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${g.token}`,
        'content-type': 'application/json',
        traceparent: `00-${callerTrace}-${'b'.repeat(16)}-01`,
      },
      body: JSON.stringify({ prompt: 'six seven' }),
    });
    const runId = ((await linked.json()) as any).data.run.run_id;
    const run = await waitForRun(stack.server.mainUrl, runId, g.token);
    expect(run.run_metadata.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(run.run_metadata.trace_id).not.toBe(callerTrace);
    await runningTracing()!.flush();
    const trace = await otlp.waitForTrace(run.run_metadata.trace_id, (spans) => spans.some((s) => s.kind === SERVER));
    expect(trace.find((s) => s.kind === SERVER)).toMatchObject({
      parentSpanId: null,
      links: [{ traceId: callerTrace, spanId: 'b'.repeat(16) }],
    });
  }, 120_000);
});
