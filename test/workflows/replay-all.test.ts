import fs from 'node:fs';
import path from 'node:path';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../../workers/workflow-bundle';
import { loadHistory } from '../support/histories';

/**
 * Every committed history replays on today's workflow code, so a change that would break
 * workflows already running in production fails CI. Each flow in temporal/ names its fixtures
 * here; a new flow or a new fixture that is not listed fails the coverage checks below.
 */
const FIXTURES_BY_FLOW: Record<string, string[]> = {
  'credit-expiry': ['credit-expiry.json'],
  'job-reservation': ['job-reservation.json', 'job-reservation-sweep.json'],
  'job-verification': ['job-verification.json'],
  'run-heal': ['webhook-run-heal.json'],
  'schedule-lease': ['schedule-lease.json'],
  'tool-holds': ['tool-holds.json'],
  'webhook-callbacks': ['webhook-callback.json', 'webhook-callback-replay.json'],
  // webhook-run*.json: webhookRunWorkflow (store activities, callback child workflow);
  // webhook-run-floor*.json: webhookRunWorkflowV2 (local store activities, callback delivered by the run itself);
  // webhook-run-v3*.json: webhookRunWorkflowV3 (template and condition nodes evaluated in the workflow task);
  // webhook-run-noreq*.json: webhookRun started before its input carried the request (its first step read and marked the record running);
  // webhook-run-current*.json: webhookRun, the type new runs start as (-written: a run's end rebuilt from the times its writes return).
  'webhook-runs': [
    'webhook-run.json',
    'webhook-run-branches.json',
    'webhook-run-cancelled.json',
    'webhook-run-floor.json',
    'webhook-run-floor-branches.json',
    'webhook-run-floor-cancelled.json',
    'webhook-run-floor-callback.json',
    'webhook-run-v3.json',
    'webhook-run-v3-branches.json',
    'webhook-run-v3-cancelled.json',
    'webhook-run-v3-callback.json',
    'webhook-run-noreq.json',
    'webhook-run-noreq-branches.json',
    'webhook-run-noreq-cancelled.json',
    'webhook-run-noreq-callback.json',
    'webhook-run-current.json',
    'webhook-run-current-branches.json',
    'webhook-run-current-cancelled.json',
    'webhook-run-current-callback.json',
    'webhook-run-current-written.json',
    'webhook-run-current-written-failed.json',
  ],
  'workflow-session': ['workflow-session.json', 'workflow-session-continued.json', 'workflow-session-tool.json'],
  'x402-settlement': ['x402-settlement.json'],
  'x402-sweep': ['x402-settlement-sweep.json'],
};
/** Flows whose whole behaviour is one activity call with no branching worth a fixture. */
const WITHOUT_FIXTURE = new Set(['ping']);

const ROOT = path.resolve(__dirname, '../..');
const DIR = path.join(ROOT, 'test/fixtures/histories');
const workflowsPath = require.resolve('../../temporal/workflows');

describe('replay of every recorded workflow history', () => {
  it('lists every flow in temporal/ and every committed fixture', () => {
    const flows = fs
      .readdirSync(path.join(ROOT, 'temporal'))
      .filter((d) => fs.existsSync(path.join(ROOT, 'temporal', d, 'workflows.ts')));
    expect(flows.filter((f) => !WITHOUT_FIXTURE.has(f)).sort()).toEqual(Object.keys(FIXTURES_BY_FLOW).sort());
    expect(
      fs
        .readdirSync(DIR)
        .filter((f) => f.endsWith('.json'))
        .sort(),
    ).toEqual(Object.values(FIXTURES_BY_FLOW).flat().sort());
  });

  for (const [flow, files] of Object.entries(FIXTURES_BY_FLOW)) {
    for (const file of files) {
      it(`${flow}: ${file} replays on today's code`, async () => {
        const history = loadHistory(file);
        expect(history.events?.length).toBeGreaterThan(2);
        await Worker.runReplayHistory({ workflowsPath }, history);
      });
    }
  }

  // A worker with tracing on runs a bundle holding the OpenTelemetry workflow interceptors, and
  // picks up executions that began without them (and the other way round when it is turned off).
  it('every recorded history replays on a tracing worker too', async () => {
    const bundle = await workflowBundle({ traced: true });
    expect(bundle.code).toContain('OpenTelemetryInboundInterceptor');
    const spans = new InMemorySpanExporter();
    const histories = Object.values(FIXTURES_BY_FLOW)
      .flat()
      .map((file) => ({ workflowId: file, history: loadHistory(file) }));
    const results: { workflowId: string; error?: string }[] = [];
    for await (const r of Worker.runReplayHistories(
      {
        workflowBundle: bundle,
        sinks: { exporter: makeWorkflowExporter(new SimpleSpanProcessor(spans), Resource.empty()) },
      },
      histories,
    ))
      results.push({ workflowId: r.workflowId, error: r.error?.message });
    expect(results).toEqual(histories.map((h) => ({ workflowId: h.workflowId, error: undefined })));
    // A replay exports nothing: the spans were exported when the history was first made.
    expect(spans.getFinishedSpans()).toEqual([]);
  }, 300_000);
});
