import { Webhook } from 'standardwebhooks';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { callbackWorkflowId } from '../../temporal/webhook-callbacks/ids';
import { runCallbackProgress } from '../../temporal/webhook-runs/client';
import { saveHistory } from '../support/histories';
import { http } from '../support/http';
import { type HttpsReceiver, type ReceivedCallback, startHttpsReceiver } from '../support/https-receiver';
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

/** The callback_* fields as they were before an attempt: what the body carries (docs/webhook-runs.md). */
const CALLBACK_FIELDS = [
  'callback_status',
  'callback_last_status',
  'callback_last_error',
  'callback_attempted_at',
  'callback_delivered_at',
] as const;

describe('webhook runs with callback_url: real workers, the delivery workflow, a real HTTPS receiver', () => {
  let stack: TestStack;
  let receiver: HttpsReceiver;
  let model: ModelServer;
  let g: GroupSetup;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    model = await startModelServer();
    stack = await startTestStack({
      workers: true,
      env: {
        MODEL_API_URL: model.url,
        CALLBACK_ALLOW_LOOPBACK: 'true',
        CALLBACK_CA_FILE: receiver.caFile,
        CALLBACK_INITIAL_INTERVAL_MS: '300',
        CALLBACK_JITTER: '0',
      },
    });
    g = await setupGroup(stack.db);
    // Model nodes are paid from the workspace's credits.
    await new LedgerStore(stack.db.models).grant({
      wallet: `ws:${g.workspaceId}`,
      credits: 10_000,
      creditType: 'admin_grant',
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
    await model?.close();
  });

  const received = (runId: string): ReceivedCallback[] =>
    receiver.received.filter((r) => r.body.includes(`"run_id":"${runId}"`));

  async function waitForCallback(
    runId: string,
    until: (run: any) => boolean = (r) => r.callback_status !== 'pending',
  ): Promise<any> {
    return waitForRun(
      stack.server.mainUrl,
      runId,
      g.token,
      60_000,
      (r) => !['queued', 'running'].includes(r.status) && until(r),
    );
  }

  /** The run's own workflow delivers its callback: it closes once delivery ends; the callbackProgress query tells how it went. */
  async function deliveryWorkflow(runId: string) {
    const handle = stack.temporal.client.workflow.getHandle(runId);
    await handle.result().catch(() => undefined);
    const desc = await handle.describe();
    const result = await runCallbackProgress(stack.temporal, runId);
    return {
      result,
      status: desc.status.name,
      sa: Object.fromEntries(desc.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])),
    };
  }

  it('a completed run: its workflow delivers the callback, the receiver gets the documented body signed per Standard Webhooks, the run shows delivered', async () => {
    const wf = await addWorkflow(stack.db, g, templateWorkflow('greets back'));
    const url = `${receiver.origin}/hooks/completed?x=1`;
    const res = await trigger(stack.server.mainUrl, g.token, wf, {
      prompt: 'Grace',
      callback_url: url,
      request_id: 'cb-completed',
      request_metadata: { ticket: 7 },
    });
    expect(res.status).toBe(200);
    const runId = res.body.data.run.run_id;

    const run = await waitForCallback(runId);
    expect(run).toMatchObject({
      status: 'completed',
      response_text: 'Hello, Grace!',
      callback_url: url,
      callback_status: 'delivered',
      callback_last_status: 200,
      callback_last_error: null,
    });
    expect(run.run_metadata.callback_attempts).toBe(1);
    expect(Date.parse(run.callback_attempted_at)).toBeGreaterThanOrEqual(Date.parse(run.completed_at));
    expect(Date.parse(run.callback_delivered_at)).toBeGreaterThanOrEqual(Date.parse(run.callback_attempted_at));

    const hits = received(runId);
    expect(hits).toHaveLength(1);
    const [hit] = hits;
    expect(hit.headers['content-type']).toMatch(/^application\/json/);
    expect(hit.headers['webhook-id']).toBe(`msg_${runId}`);
    expect(
      Math.abs(Number(hit.headers['webhook-timestamp']) * 1000 - Date.parse(run.callback_attempted_at)),
    ).toBeLessThan(2_000);
    expect(hit.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const payload = new Webhook(g.webhookSecret).verify(hit.body, hit.headers) as any;
    // Another secret, or a body changed by one byte, does not verify.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`).verify(hit.body, hit.headers),
    ).toThrow();
    expect(() => new Webhook(g.webhookSecret).verify(hit.body.replace('Grace', 'Grace!'), hit.headers)).toThrow();

    // Exactly the documented body: type, timestamp (= completed_at) and the full run as GET returns
    // it, with the callback fields as they stood before this attempt.
    expect(Object.keys(payload).sort()).toEqual(['data', 'timestamp', 'type']);
    expect(Object.keys(payload.data)).toEqual(['run']);
    expect(payload.type).toBe('webhook_run.completed');
    expect(payload.timestamp).toBe(run.completed_at);
    const before = {
      ...run,
      callback_status: 'pending',
      callback_last_status: null,
      callback_last_error: null,
      callback_attempted_at: null,
      callback_delivered_at: null,
    };
    const { updated_at: _u1, run_metadata: m1, ...sent } = payload.data.run;
    const { updated_at: _u2, run_metadata: m2, ...expected } = before;
    expect(sent).toEqual(expected);
    expect(m1).toEqual({ ...m2, callback_attempts: 0 });
    for (const k of CALLBACK_FIELDS) expect(k in payload.data.run).toBe(true);

    const delivery = await deliveryWorkflow(runId);
    expect(delivery.status).toBe('COMPLETED');
    expect(delivery.result).toEqual({ attempts: 1, waits: [], status: 'delivered' });
    expect(delivery.sa).toMatchObject({ FlowKind: 'webhook_run', AgentGroupId: g.groupId, FlowStatus: 'completed' });
    // No child workflow any more: the attempt is an activity of the run's own workflow.
    await expect(stack.temporal.client.workflow.getHandle(callbackWorkflowId(runId)).describe()).rejects.toThrow(
      /not found/i,
    );
  });

  it('retries a 500 and delivers on the next attempt: same webhook-id, each attempt signed anew', async () => {
    const wf = await addWorkflow(stack.db, g, templateWorkflow('retried'));
    receiver.script([{ status: 500 }]);
    const res = await trigger(stack.server.mainUrl, g.token, wf, {
      prompt: 'again',
      callback_url: `${receiver.origin}/hooks/retry`,
    });
    const runId = res.body.data.run.run_id;

    const run = await waitForCallback(runId);
    expect(run).toMatchObject({
      status: 'completed',
      callback_status: 'delivered',
      callback_last_status: 200,
      callback_last_error: null,
    });
    expect(run.run_metadata.callback_attempts).toBe(2);
    expect(run.callback_delivered_at).not.toBeNull();

    const hits = received(runId);
    expect(hits).toHaveLength(2);
    expect(hits[1].at - hits[0].at).toBeGreaterThanOrEqual(300);
    expect(new Set(hits.map((h) => h.headers['webhook-id']))).toEqual(new Set([`msg_${runId}`]));
    const wh = new Webhook(g.webhookSecret);
    const [first, second] = hits.map((h) => wh.verify(h.body, h.headers) as any);
    expect(first.data.run).toMatchObject({ run_id: runId, callback_status: 'pending', callback_last_status: null });
    // The second attempt's body shows the first attempt's outcome.
    expect(second.data.run).toMatchObject({
      run_id: runId,
      callback_status: 'pending',
      callback_last_status: 500,
      callback_last_error: 'receiver answered 500',
    });

    const delivery = await deliveryWorkflow(runId);
    expect(delivery.result).toEqual({ attempts: 2, waits: [300], status: 'delivered' });
    await saveHistory(stack.temporal.client.workflow.getHandle(runId), 'webhook-run-current-callback.json');
  });

  it('a cancelled run: its callback says webhook_run.cancelled and carries the cancel request', async () => {
    const wf = await addWorkflow(stack.db, g, {
      name: 'slow ask',
      nodes: [{ id: 'ask', type: 'model', prompt: '{{prompt}}' }],
      edges: [],
    });
    model.behave({ delayMs: 60_000, status: 200 });
    const before = model.requests.length;
    const res = await trigger(stack.server.mainUrl, g.token, wf, {
      prompt: 'never mind',
      callback_url: `${receiver.origin}/hooks/cancelled`,
    });
    const runId = res.body.data.run.run_id;
    await model.waitForRequests(before + 1, 30_000);
    const cancel = await http('POST', `${stack.server.mainUrl}/api/agent-webhooks/runs/${runId}/cancel`, {
      body: { reason: 'changed my mind', cancel_request_id: 'cb-cancel-1' },
      headers: { authorization: `Bearer ${g.token}` },
    });
    model.behave({ delayMs: 0 });
    expect(cancel.status).toBe(200);
    expect(cancel.body.data.run.status).toBe('cancelled');

    const run = await waitForCallback(runId);
    expect(run).toMatchObject({ status: 'cancelled', callback_status: 'delivered', callback_last_status: 200 });
    const hits = received(runId);
    expect(hits).toHaveLength(1);
    const payload = new Webhook(g.webhookSecret).verify(hits[0].body, hits[0].headers) as any;
    expect(payload.type).toBe('webhook_run.cancelled');
    expect(payload.timestamp).toBe(run.completed_at);
    expect(payload.data.run).toMatchObject({
      run_id: runId,
      status: 'cancelled',
      error_code: 'cancelled',
      response_text: null,
      cancel_request_id: 'cb-cancel-1',
      cancel_reason: 'changed my mind',
    });
    expect(payload.data.run.run_metadata.cancelled_at).toBe(run.run_metadata.cancelled_at);
    const delivery = await deliveryWorkflow(runId);
    expect(delivery.status).toBe('CANCELLED');
    expect(delivery.result).toEqual({ attempts: 1, waits: [], status: 'delivered' });
  });

  it('a run without callback_url shows skipped and starts no delivery workflow', async () => {
    const wf = await addWorkflow(stack.db, g, templateWorkflow('quiet'));
    const res = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'shh' });
    const run = await waitForRun(stack.server.mainUrl, res.body.data.run.run_id, g.token);
    expect(run).toMatchObject({
      status: 'completed',
      callback_url: null,
      callback_status: 'skipped',
      callback_last_status: null,
      callback_attempted_at: null,
      callback_delivered_at: null,
    });
    await stack.temporal.client.workflow.getHandle(run.run_id).result();
    await expect(stack.temporal.client.workflow.getHandle(callbackWorkflowId(run.run_id)).describe()).rejects.toThrow(
      /not found/i,
    );
    expect(received(run.run_id)).toHaveLength(0);
  });
});
