import { randomBytes } from 'node:crypto';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { startWebhookRun } from '../../temporal/webhook-runs/client';
import { selectQueues } from '../../workers/queues';
import { type RunningWorkers, runWorkers } from '../../workers/run-workers';
import { saveHistory } from '../support/histories';
import { http } from '../support/http';
import { type ModelServer, startModelServer } from '../support/model-server';
import { startTestStack, type TestStack } from '../support/stack';
import {
  addWorkflow,
  type GroupSetup,
  setupGroup,
  templateWorkflow,
  trigger,
  waitForRun,
} from '../support/webhook-runs';

describe('webhook runs: trigger, poll, cancel on the real API, Temporal and store', () => {
  let stack: TestStack;
  let model: ModelServer;
  let g: GroupSetup;

  beforeAll(async () => {
    model = await startModelServer();
    stack = await startTestStack({ workers: true, env: { MODEL_API_URL: model.url, MODEL_NAME: 'configured-model' } });
    g = await setupGroup(stack.db);
    // Model nodes are paid from the workspace's credits.
    await new LedgerStore(stack.db.models).grant({
      wallet: `ws:${g.workspaceId}`,
      credits: 10_000,
      creditType: 'admin_grant',
    });
  });
  afterAll(async () => {
    await stack.stop();
    await model.close();
  });

  it('refuses text the store cannot hold (NUL, an unpaired surrogate) in the webhook shape, never a 500 (found by the fuzzer)', async () => {
    const wf = await addWorkflow(stack.db, g, templateWorkflow('unicode'));
    for (const raw of [
      '{"prompt":"a\\u0000b"}',
      '{"prompt":"x\\ud83d"}',
      '{"prompt":"ok","request_metadata":{"k\\u0000":1}}',
    ]) {
      const res = await http('POST', `${stack.server.mainUrl}/api/agent-webhooks/${wf}/trigger`, {
        raw,
        headers: { authorization: `Bearer ${g.token}` },
      });
      expect({ raw, status: res.status, body: res.body }).toMatchObject({
        raw,
        status: expect.any(Number),
        body: { success: false, error: expect.any(String) },
      });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    // An emoji (a paired surrogate) is ordinary text.
    const fine = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'hi 😀' });
    expect(fine.status).toBe(200);
  });

  it('runs a template workflow: queued → running → completed, each with its timestamp; findable by search attributes', async () => {
    const wf = await addWorkflow(stack.db, g, templateWorkflow());
    const res = await trigger(stack.server.mainUrl, g.token, wf, {
      prompt: 'Ada',
      request_metadata: { 'a.b': 1, $x: 'y' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: 'run queued' });
    const { run, status_url } = res.body.data;
    expect(Object.keys(run).sort()).toEqual([
      'cancel_reason',
      'cancel_request_id',
      'cancel_requested_at',
      'cancel_requested_by_user_id',
      'created_at',
      'run_id',
      'status',
      'updated_at',
      'workflow_id',
    ]);
    expect(run).toMatchObject({ workflow_id: wf, status: 'queued', cancel_requested_at: null });
    expect(status_url).toBe(`${stack.config.publicBaseUrl}/api/agent-webhooks/runs/${run.run_id}`);

    const done = await waitForRun(stack.server.mainUrl, run.run_id, g.token);
    expect(done).toMatchObject({
      status: 'completed',
      response_text: 'Hello, Ada!',
      model: null,
      prompt: 'Ada',
      callback_status: 'skipped',
      error_code: null,
      request_metadata: { 'a.b': 1, $x: 'y' },
    });
    const t = (k: string) => Date.parse(k);
    expect(t(done.run_metadata.queued_at)).toBeLessThanOrEqual(t(done.started_at));
    expect(t(done.started_at)).toBeLessThanOrEqual(t(done.completed_at));
    expect(done.run_metadata.nodes).toEqual([
      { id: 'greet', type: 'template', status: 'completed', worker: `test-${process.pid}` },
    ]);

    const handle = stack.temporal.client.workflow.getHandle(run.run_id);
    await handle.result();
    const desc = await handle.describe();
    expect(desc.status.name).toBe('COMPLETED');
    const sa = Object.fromEntries(desc.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value]));
    expect(sa).toMatchObject({
      FlowKind: 'webhook_run',
      WebhookWorkflowId: wf,
      AgentGroupId: g.groupId,
      FlowStatus: 'completed',
    });
    await saveHistory(handle, 'webhook-run-current.json');
  });

  it('evaluates template and condition nodes inside the run workflow: no activity task, one workflow task', async () => {
    const wf = await addWorkflow(stack.db, g, {
      name: 'pure',
      nodes: [
        { id: 'a', type: 'template', template: 'x{{prompt}}' },
        { id: 'c', type: 'condition', input: '{{nodes.a.output}}', operator: 'matches', value: '^x(a+)+$' },
        { id: 'yes', type: 'template', template: 'long {{nodes.a.output}}' },
      ],
      edges: [
        { from: 'a', to: 'c' },
        { from: 'c', to: 'yes', when: true },
      ],
    });
    const res = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'aaaa' });
    const done = await waitForRun(stack.server.mainUrl, res.body.data.run.run_id, g.token);
    expect(done).toMatchObject({ status: 'completed', response_text: 'long xaaaa' });
    expect(done.run_metadata.nodes.map((n: any) => [n.id, n.status, n.worker])).toEqual([
      ['a', 'completed', `test-${process.pid}`],
      ['c', 'completed', `test-${process.pid}`],
      ['yes', 'completed', `test-${process.pid}`],
    ]);
    const { events } = await stack.temporal.client.workflow.getHandle(done.run_id).fetchHistory();
    expect(events!.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(0);
    expect(events!.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
    expect(events![0].workflowExecutionStartedEventAttributes!.workflowType!.name).toBe('webhookRun');
    // Nothing dispatched, so the record is written once: queued → completed, started at that write.
    expect(events!.filter((e) => e.markerRecordedEventAttributes)).toHaveLength(1);
    expect(done.started_at).toBe(done.completed_at);
  });

  it('a run whose record ended before its workflow ran leaves it as it is, whether or not the graph dispatches', async () => {
    const inline = await addWorkflow(stack.db, g, templateWorkflow('ended-inline'));
    const dispatching = await addWorkflow(stack.db, g, {
      name: 'ended-dispatch',
      nodes: [
        { id: 'a', type: 'template', template: '{{prompt}}' },
        { id: 'm', type: 'model', prompt: '{{nodes.a.output}}' },
      ],
      edges: [{ from: 'a', to: 'm' }],
    });
    // Its graph fails too: the record's failure is still not overwritten by the run's own.
    const failing = await addWorkflow(stack.db, g, {
      name: 'ended-failing',
      nodes: [{ id: 'big', type: 'template', template: '{{prompt}}'.repeat(40) }],
      edges: [],
    });
    for (const [wf, prompt] of [
      [inline, 'late'],
      [dispatching, 'late'],
      [failing, 'y'.repeat(10_000)],
    ]) {
      // A finished run of the graph, copied under a new id as a record that failed before its workflow started.
      const res = await trigger(stack.server.mainUrl, g.token, wf, { prompt });
      const first = await waitForRun(stack.server.mainUrl, res.body.data.run.run_id, g.token);
      const runId = `run_${randomBytes(12).toString('hex')}`;
      const doc = (await stack.db.models.webhookRuns.findById(first.run_id).lean())!;
      await stack.db.models.webhookRuns.create({
        ...doc,
        _id: runId,
        status: 'failed',
        started_at: null,
        completed_at: null,
        error_code: 'workflow_engine_unavailable',
      });
      const graph = await new WorkflowRepository(stack.db.models).runnable(wf);
      await startWebhookRun(stack.temporal, {
        runId,
        workflowId: wf,
        groupId: g.groupId,
        nodes: graph!.nodes,
        edges: graph!.edges,
        callback: null,
        nodeStartTimeoutMs: 10_000,
        untrusted: false,
        prompt,
        metadata: {},
      });
      const handle = stack.temporal.client.workflow.getHandle(runId);
      expect(await handle.result()).toMatchObject({ status: 'failed', error_code: 'run_already_ended' });
      const after = (await stack.db.models.webhookRuns.findById(runId).lean())!;
      expect(after).toMatchObject({
        status: 'failed',
        started_at: null,
        completed_at: null,
        error_code: 'workflow_engine_unavailable',
      });
      const { events } = await handle.fetchHistory();
      expect(events!.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(0);
    }
  });

  it('a run cancelled before any worker took it ends cancelled, never started, though it dispatches nothing', async () => {
    const wf = await addWorkflow(stack.db, g, templateWorkflow('cancel-early'));
    // Another API instance on queues no worker serves yet: the run waits for its first workflow task.
    const idle = await startTestStack({
      keepDatabase: true,
      env: { TEMPORAL_TASK_QUEUE_PREFIX: `${stack.config.temporalTaskQueuePrefix}idle-` },
    });
    let workers: RunningWorkers | undefined;
    try {
      const res = await trigger(idle.server.mainUrl, g.token, wf, { prompt: 'never' });
      const runId = res.body.data.run.run_id;
      const handle = idle.temporal.client.workflow.getHandle(runId);
      const cancelling = http('POST', `${idle.server.mainUrl}/api/agent-webhooks/runs/${runId}/cancel`, {
        headers: { authorization: `Bearer ${g.token}` },
      });
      const requested = async () =>
        ((await handle.fetchHistory()).events ?? []).some((e) => e.workflowExecutionCancelRequestedEventAttributes);
      while (!(await requested())) await new Promise((r) => setTimeout(r, 50));
      // The first task brings the start and the cancel together.
      workers = await runWorkers(
        { config: idle.config, db: idle.db, temporal: idle.temporal, identity: 'late-worker' },
        selectQueues(['runs']),
        idle.config.temporalAddress,
      );
      const cancelled = await cancelling;
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.data.run).toMatchObject({ status: 'cancelled', error_code: 'cancelled', started_at: null });
      // The record is written in the task that closes the execution; the close is recorded just after.
      await expect(handle.result()).rejects.toThrow();
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      const { events } = await handle.fetchHistory();
      expect(events!.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
      expect(events!.filter((e) => e.markerRecordedEventAttributes)).toHaveLength(1);
    } finally {
      await workers?.shutdown();
      await idle.stop();
    }
  });

  it('sends a regex match over a large input to the condition queue instead of its workflow task, with the same result', async () => {
    const wf = await addWorkflow(stack.db, g, {
      name: 'heavy-match',
      nodes: [
        { id: 'p', type: 'template', template: '{{prompt}}' },
        { id: 'c', type: 'condition', input: '{{nodes.p.output}}', operator: 'matches', value: '^(a+)+$' },
        { id: 'yes', type: 'template', template: 'all a' },
        { id: 'no', type: 'template', template: 'not all a' },
      ],
      edges: [
        { from: 'p', to: 'c' },
        { from: 'c', to: 'yes', when: true },
        { from: 'c', to: 'no', when: false },
      ],
    });
    const small = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'aaaa' });
    const large = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'a'.repeat(30_000) });
    const [s, l] = [
      await waitForRun(stack.server.mainUrl, small.body.data.run.run_id, g.token),
      await waitForRun(stack.server.mainUrl, large.body.data.run.run_id, g.token),
    ];
    expect([s.response_text, l.response_text]).toEqual(['all a', 'all a']);
    const activities = async (runId: string) =>
      ((await stack.temporal.client.workflow.getHandle(runId).fetchHistory()).events ?? [])
        .filter((e) => e.activityTaskScheduledEventAttributes)
        .map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
    expect(await activities(s.run_id)).toEqual([]);
    expect(await activities(l.run_id)).toEqual(['runConditionNode']);
    // The node evaluated before the dispatch is named by the start write that came with it.
    expect(l.run_metadata.nodes.map((n: any) => [n.id, n.status, n.worker])).toEqual([
      ['p', 'completed', `test-${process.pid}`],
      ['c', 'completed', `test-${process.pid}`],
      ['yes', 'completed', `test-${process.pid}`],
      ['no', 'skipped', undefined],
    ]);
  });

  it('fails a run whose template renders past its budget with node_output_too_large, evaluated in the workflow', async () => {
    const wf = await addWorkflow(stack.db, g, {
      name: 'bomb',
      nodes: [{ id: 'big', type: 'template', template: '{{prompt}}'.repeat(40) }],
      edges: [],
    });
    const res = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'y'.repeat(10_000) });
    const done = await waitForRun(stack.server.mainUrl, res.body.data.run.run_id, g.token);
    expect(done).toMatchObject({ status: 'failed', error_code: 'node_output_too_large', response_text: null });
    expect(done.run_metadata.nodes).toEqual([
      { id: 'big', type: 'template', status: 'failed', error_code: 'node_output_too_large' },
    ]);
  });

  it('branches on a condition and answers with the final node that ran', async () => {
    const wf = await addWorkflow(stack.db, g, {
      name: 'router',
      nodes: [
        { id: 'classify', type: 'template', template: '{{prompt}}' },
        {
          id: 'is_refund',
          type: 'condition',
          input: '{{nodes.classify.output}}',
          operator: 'contains',
          value: 'refund',
        },
        { id: 'refund', type: 'template', template: 'Refund desk: {{nodes.classify.output}}' },
        { id: 'other', type: 'template', template: 'General desk: {{prompt}}' },
      ],
      edges: [
        { from: 'classify', to: 'is_refund' },
        { from: 'is_refund', to: 'refund', when: true },
        { from: 'is_refund', to: 'other', when: false },
      ],
    });
    const a = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'I want a REFUND' });
    const b = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'hello' });
    const ra = await waitForRun(stack.server.mainUrl, a.body.data.run.run_id, g.token);
    const rb = await waitForRun(stack.server.mainUrl, b.body.data.run.run_id, g.token);
    expect(ra.response_text).toBe('Refund desk: I want a REFUND');
    expect(rb.response_text).toBe('General desk: hello');
    await saveHistory(stack.temporal.client.workflow.getHandle(ra.run_id), 'webhook-run-current-branches.json');
    expect(ra.run_metadata.nodes.map((n: any) => [n.id, n.status])).toEqual([
      ['classify', 'completed'],
      ['is_refund', 'completed'],
      ['refund', 'completed'],
      ['other', 'skipped'],
    ]);
  });

  it('calls the configured chat-completions endpoint for a model node', async () => {
    const wf = await addWorkflow(stack.db, g, {
      name: 'summarise',
      nodes: [
        { id: 'ask', type: 'model', system: 'Be brief.', prompt: 'Summarise: {{prompt}}', temperature: 0 },
        { id: 'wrap', type: 'template', template: '[{{nodes.ask.output}}]' },
      ],
      edges: [{ from: 'ask', to: 'wrap' }],
    });
    model.behave({ delayMs: 0, status: 200 });
    const before = model.requests.length;
    const res = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'a long text' });
    const run = await waitForRun(stack.server.mainUrl, res.body.data.run.run_id, g.token);
    expect(run).toMatchObject({
      status: 'completed',
      response_text: '[echo: Summarise: a long text]',
      model: 'test-model-1',
    });
    const req = model.requests[before];
    expect(req.body).toMatchObject({
      model: 'configured-model',
      temperature: 0,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Summarise: a long text' },
      ],
    });
    expect(req.headers['idempotency-key']).toBe(`${run.run_id}:ask`);
  });

  it('ends failed with the node error when the model endpoint refuses', async () => {
    const wf = await addWorkflow(stack.db, g, {
      name: 'refused',
      nodes: [{ id: 'ask', type: 'model', prompt: '{{prompt}}' }],
      edges: [],
    });
    model.behave({ status: 400 });
    const res = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'x' });
    const run = await waitForRun(stack.server.mainUrl, res.body.data.run.run_id, g.token);
    model.behave({ status: 200 });
    expect(run).toMatchObject({ status: 'failed', error_code: 'model_error', response_text: null });
    expect(run.error_message).toContain('400');
    expect(Date.parse(run.run_metadata.failed_at)).toBe(Date.parse(run.completed_at));
    // The record is written by the workflow's last activity, just before the execution closes.
    await expect(stack.temporal.client.workflow.getHandle(run.run_id).result()).rejects.toThrow();
    const desc = await stack.temporal.client.workflow.getHandle(run.run_id).describe();
    expect(desc.status.name).toBe('FAILED');
    expect(Object.fromEntries(desc.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).FlowStatus).toBe(
      'failed',
    );
  });

  it("refuses other groups' runs (404), bad bearers (401) and bad ids (400) in the webhook error shape", async () => {
    const wf = await addWorkflow(stack.db, g, templateWorkflow('private'));
    const res = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'mine' });
    const url = `${stack.server.mainUrl}/api/agent-webhooks/runs/${res.body.data.run.run_id}`;
    const other = await setupGroup(stack.db);
    const stranger = await http('GET', url, { headers: { authorization: `Bearer ${other.token}` } });
    expect(stranger.status).toBe(404);
    expect(stranger.body).toEqual({ success: false, error: 'run_not_found', message: expect.any(String) });
    expect((await http('POST', `${url}/cancel`, { headers: { authorization: `Bearer ${other.token}` } })).status).toBe(
      404,
    );
    expect((await http('GET', url)).body).toMatchObject({ success: false, error: 'missing_bearer' });
    expect((await http('GET', url, { headers: { authorization: 'Bearer agt_' + 'x'.repeat(43) } })).status).toBe(401);
    expect(
      (
        await http('GET', `${stack.server.mainUrl}/api/agent-webhooks/runs/nope`, {
          headers: { authorization: `Bearer ${g.token}` },
        })
      ).body,
    ).toMatchObject({ success: false, error: 'invalid_request' });
    // Another workspace's workflow is not found for this group.
    const foreign = await addWorkflow(stack.db, other, templateWorkflow('foreign'));
    expect((await trigger(stack.server.mainUrl, g.token, foreign, { prompt: 'x' })).body).toMatchObject({
      error: 'workflow_not_found',
    });
    expect((await trigger(stack.server.mainUrl, g.token, 'bad id', { prompt: 'x' })).status).toBe(400);
    expect((await trigger(stack.server.mainUrl, g.token, wf, {})).body).toMatchObject({
      success: false,
      error: 'invalid_request',
    });
    const http1 = await trigger(stack.server.mainUrl, g.token, wf, {
      prompt: 'x',
      callback_url: 'http://example.com/hook',
    });
    expect(http1.body).toMatchObject({ success: false, error: 'invalid_request' });
    const priv = await trigger(stack.server.mainUrl, g.token, wf, {
      prompt: 'x',
      callback_url: 'https://10.0.0.8/hook',
    });
    expect(priv.body).toMatchObject({ success: false, error: 'invalid_callback_url' });
  });

  it('409s a workflow not on the budget and missing credentials, opening approval requests; after approval the same trigger runs', async () => {
    const wf = await addWorkflow(
      stack.db,
      g,
      { ...templateWorkflow('needs-setup'), credentials: ['CRM_TOKEN'] },
      { onBudget: false },
    );
    const first = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'x', request_id: 'blocked-1' });
    expect(first.status).toBe(409);
    expect(first.body).toMatchObject({
      success: false,
      error: 'workflow_not_on_budget',
      data: {
        add_workflow: true,
        workflow_request_id: expect.stringMatching(/^apr_/),
        credential_request_ids: [expect.stringMatching(/^apr_/)],
        missing_credentials: [{ name: 'CRM_TOKEN' }],
      },
    });
    const again = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'x', request_id: 'blocked-1' });
    expect(again.body.data.workflow_request_id).toBe(first.body.data.workflow_request_id);

    await g.repo.approve(first.body.data.workflow_request_id, { by: 'test' });
    const second = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'x', request_id: 'blocked-1' });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({
      error: 'missing_credentials',
      data: {
        add_workflow: false,
        workflow_request_id: null,
        credential_request_ids: first.body.data.credential_request_ids,
      },
    });

    await g.repo.approve(first.body.data.credential_request_ids[0], { by: 'test', credentialValue: 'sekret' });
    const ok = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'x', request_id: 'blocked-1' });
    expect(ok.status).toBe(200);
    expect((await waitForRun(stack.server.mainUrl, ok.body.data.run.run_id, g.token)).status).toBe('completed');
  });

  it('cancels a run while its slow model call is in flight: the HTTP call is aborted within seconds, the run ends cancelled', async () => {
    const wf = await addWorkflow(stack.db, g, {
      name: 'slow',
      nodes: [{ id: 'ask', type: 'model', prompt: '{{prompt}}' }],
      edges: [],
    });
    model.behave({ delayMs: 60_000, status: 200 });
    const before = model.requests.length;
    const res = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'take your time' });
    const runUrl = `${stack.server.mainUrl}/api/agent-webhooks/runs/${res.body.data.run.run_id}`;
    await model.waitForRequests(before + 1);
    const asked = Date.now();
    const cancel = await http('POST', `${runUrl}/cancel`, {
      body: { reason: 'x'.repeat(2000), cancel_request_id: 'cancel-1' },
      headers: { authorization: `Bearer ${g.token}` },
    });
    model.behave({ delayMs: 0 });
    expect(cancel.status).toBe(200);
    // Far below the model's 60 s: the call was aborted, not waited out (the API itself waits up to 10 s for the end).
    expect(Date.now() - asked).toBeLessThan(20_000);
    const run = cancel.body.data.run;
    expect(run).toMatchObject({
      status: 'cancelled',
      error_code: 'cancelled',
      cancel_request_id: 'cancel-1',
      cancel_requested_by_user_id: expect.stringMatching(/^agtid_/),
    });
    expect(run.cancel_reason).toHaveLength(500);
    expect(Date.parse(run.cancel_requested_at)).toBeLessThanOrEqual(Date.parse(run.run_metadata.cancelled_at));
    expect(await model.requests[before].aborted).toBe(true);
    expect(model.requests.length).toBe(before + 1);

    const twice = await http('POST', `${runUrl}/cancel`, { headers: { authorization: `Bearer ${g.token}` } });
    expect(twice.status).toBe(200);
    expect(twice.body.data.run).toMatchObject({ status: 'cancelled', cancel_request_id: 'cancel-1' });
    // The cancel answers once the record says cancelled; the execution closes with that workflow task.
    await expect(stack.temporal.client.workflow.getHandle(run.run_id).result()).rejects.toThrow();
    const desc = await stack.temporal.client.workflow.getHandle(run.run_id).describe();
    expect(desc.status.name).toBe('CANCELLED');
    await saveHistory(stack.temporal.client.workflow.getHandle(run.run_id), 'webhook-run-current-cancelled.json');

    const done = await trigger(
      stack.server.mainUrl,
      g.token,
      await addWorkflow(stack.db, g, templateWorkflow('quick')),
      { prompt: 'q' },
    );
    await waitForRun(stack.server.mainUrl, done.body.data.run.run_id, g.token);
    const late = await http(
      'POST',
      `${stack.server.mainUrl}/api/agent-webhooks/runs/${done.body.data.run.run_id}/cancel`,
      { headers: { authorization: `Bearer ${g.token}` } },
    );
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ success: false, error: 'run_already_terminal' });
  });
});
