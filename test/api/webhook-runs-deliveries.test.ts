import { createPublicKey, verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyCallback } from '../../sdk/src/callbacks';
import { AgentClient } from '../../sdk/src/client';
import { callbackReplayResult } from '../../temporal/webhook-callbacks/client';
import { callbackReplayWorkflowId } from '../../temporal/webhook-callbacks/ids';
import { saveHistory } from '../support/histories';
import { http } from '../support/http';
import { type HttpsReceiver, type ReceivedCallback, startHttpsReceiver } from '../support/https-receiver';
import { sample } from '../support/prometheus';
import { startTestStack, type TestStack } from '../support/stack';
import {
  addWorkflow,
  type GroupSetup,
  setupGroup,
  templateWorkflow,
  trigger,
  waitForRun,
} from '../support/webhook-runs';

const METRICS_TOKEN = 'callbacks-metrics-token-0123456789';
const REPLAY_LIMIT = 3;

/** The v1a signatures of a header verified with node:crypto against a `whpk_` public key (no SDK code). */
function ed25519Verifies(publicKey: string, hit: ReceivedCallback): boolean {
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey.slice(5), 'base64').toString('base64url') },
    format: 'jwk',
  });
  const content = Buffer.from(`${hit.headers['webhook-id']}.${hit.headers['webhook-timestamp']}.${hit.body}`);
  return hit.headers['webhook-signature']
    .split(' ')
    .filter((s) => s.startsWith('v1a,'))
    .some((s) => verify(null, content, key, Buffer.from(s.slice(4), 'base64')));
}

const schemes = (hit: ReceivedCallback) => hit.headers['webhook-signature'].split(' ').map((s) => s.split(',')[0]);

describe('callback delivery log, replay, key rotation, ed25519 and the abort stop: real workers, a real HTTPS receiver', () => {
  let stack: TestStack;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    stack = await startTestStack({
      workers: true,
      env: {
        CALLBACK_ALLOW_LOOPBACK: 'true',
        CALLBACK_CA_FILE: receiver.caFile,
        CALLBACK_INITIAL_INTERVAL_MS: '200',
        CALLBACK_JITTER: '0',
        CALLBACK_REPLAY_LIMIT_PER_GROUP: String(REPLAY_LIMIT),
        METRICS_TOKEN,
      },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  const main = (p: string) => `${stack.server.mainUrl}${p}`;
  const auth = (g: GroupSetup) => ({ authorization: `Bearer ${g.token}` });
  const received = (runId: string) => receiver.received.filter((r) => r.body.includes(`"run_id":"${runId}"`));
  const deliveries = (g: GroupSetup, runId: string, query = '') =>
    http('GET', main(`/api/agent-webhooks/runs/${runId}/deliveries${query}`), { headers: auth(g) });
  const replay = (g: GroupSetup, runId: string) =>
    http('POST', main(`/api/agent-webhooks/runs/${runId}/deliveries/replay`), { headers: auth(g) });
  const rotate = (g: GroupSetup, body: Record<string, unknown>) =>
    http('POST', main('/api/agent-webhooks/signing-keys/rotate'), { headers: auth(g), body });
  const keys = async (g: GroupSetup) => {
    const res = await http('GET', main('/api/agent-webhooks/signing-keys'), { headers: auth(g) });
    expect(res.status).toBe(200);
    return res.body.data.keys as any[];
  };
  const metrics = async () => {
    const res = await http('GET', `${stack.server.apiUrl}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(res.status).toBe(200);
    return (outcome: string, kind: string) => sample(res.text, 'webhook_callback_attempts_total', { outcome, kind });
  };

  /** Triggers a one-node run with a callback and waits until its scheduled deliveries have ended. */
  async function finishedRun(g: GroupSetup, path: string): Promise<{ runId: string; run: any }> {
    const wf = await addWorkflow(stack.db, g, templateWorkflow(path));
    const res = await trigger(stack.server.mainUrl, g.token, wf, {
      prompt: path,
      callback_url: `${receiver.origin}/hooks/${path}`,
    });
    expect(res.status).toBe(200);
    const runId = res.body.data.run.run_id;
    const run = await waitForRun(
      stack.server.mainUrl,
      runId,
      g.token,
      60_000,
      (r) => !['queued', 'running'].includes(r.status) && r.callback_status !== 'pending',
    );
    // The run's workflow closes once its delivery ends: nothing more will arrive unasked.
    await stack.temporal.client.workflow.getHandle(runId).result();
    return { runId, run };
  }

  async function waitForReplay(g: GroupSetup, runId: string, replayId: string): Promise<any> {
    await callbackReplayResult(stack.temporal, replayId);
    const res = await deliveries(g, runId, '?limit=100');
    return res.body.data.deliveries.find((d: any) => d.replay_id === replayId);
  }

  it('logs every attempt (status, latency, outcome), counts them in /metrics, pages the log, and keeps it to the group', async () => {
    const g = await setupGroup(stack.db);
    const before = await metrics();
    receiver.script([{ status: 500 }, { status: 200 }]);
    const { runId, run } = await finishedRun(g, 'logged');
    expect(run).toMatchObject({ callback_status: 'delivered', callback_last_status: 200 });

    const res = await deliveries(g, runId);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      run_id: runId,
      webhook_id: `msg_${runId}`,
      callback_status: 'delivered',
      next_cursor: null,
    });
    const log = res.body.data.deliveries;
    expect(log).toHaveLength(2);
    expect(log[0]).toMatchObject({
      kind: 'delivery',
      attempt: 1,
      status_code: 500,
      outcome: 'retry',
      error: 'receiver answered 500',
      replay_id: null,
      signed_with: ['v1:0'],
    });
    expect(log[1]).toMatchObject({ kind: 'delivery', attempt: 2, status_code: 200, outcome: 'delivered', error: null });
    for (const a of log) {
      expect(a.latency_ms).toBeGreaterThanOrEqual(0);
      expect(a.latency_ms).toBeLessThan(15_000);
      expect(Object.keys(a)).not.toContain('body');
    }
    // The attempt times are the webhook-timestamp of each POST the receiver got.
    const hits = received(runId);
    expect(hits).toHaveLength(2);
    hits.forEach((h, i) =>
      expect(Math.floor(Date.parse(log[i].attempted_at) / 1000)).toBe(Number(h.headers['webhook-timestamp'])),
    );

    // Paged: one at a time, the cursor leads to the second and then to nothing.
    const first = await deliveries(g, runId, '?limit=1');
    expect(first.body.data.deliveries.map((d: any) => d.attempt)).toEqual([1]);
    const second = await deliveries(g, runId, `?limit=1&after=${first.body.data.next_cursor}`);
    expect(second.body.data.deliveries.map((d: any) => d.attempt)).toEqual([2]);
    expect(second.body.data.next_cursor).toBeNull();
    // Bounded input.
    expect((await deliveries(g, runId, '?limit=101')).status).toBe(400);
    expect((await deliveries(g, runId, '?after=nope')).status).toBe(400);

    // Another group reads nothing of it, and cannot replay it.
    const other = await setupGroup(stack.db);
    expect(await deliveries(other, runId)).toMatchObject({ status: 404, body: { error: 'run_not_found' } });
    expect(await replay(other, runId)).toMatchObject({ status: 404, body: { error: 'run_not_found' } });

    const after = await metrics();
    expect(after('retry', 'delivery') - before('retry', 'delivery')).toBe(1);
    expect(after('delivered', 'delivery') - before('delivered', 'delivery')).toBe(1);
  });

  it('replays the final body under the same webhook-id with a fresh signature, audited, leaving the run as it was', async () => {
    const g = await setupGroup(stack.db);
    const { runId } = await finishedRun(g, 'replayed');
    const runBefore = (await http('GET', main(`/api/agent-webhooks/runs/${runId}`), { headers: auth(g) })).body.data
      .run;
    const [original] = received(runId);
    const before = await metrics();
    await new Promise((r) => setTimeout(r, 1100)); // a later second: the timestamp must be fresh

    const res = await replay(g, runId);
    expect(res.status).toBe(202);
    const r = res.body.data.replay;
    expect(r).toMatchObject({ run_id: runId, webhook_id: `msg_${runId}`, status: 'pending' });
    const tokenId = (await g.repo.resolveGroupToken(g.token))!.tokenId;
    expect(r.requested_by).toBe(tokenId);

    const logged = await waitForReplay(g, runId, r.replay_id);
    expect(logged).toMatchObject({ kind: 'replay', attempt: null, requested_by: tokenId, outcome: 'delivered' });
    const hits = received(runId);
    expect(hits).toHaveLength(2);
    const again = hits[1];
    expect(again.headers['webhook-id']).toBe(original.headers['webhook-id']);
    expect(again.body).toBe(original.body);
    expect(Number(again.headers['webhook-timestamp'])).toBeGreaterThan(Number(original.headers['webhook-timestamp']));
    expect(again.headers['webhook-signature']).not.toBe(original.headers['webhook-signature']);
    expect((new Webhook(g.webhookSecret).verify(again.body, again.headers) as any).data.run.run_id).toBe(runId);

    // The audit record: who, when, which message; its result is the logged attempt.
    const audit = await stack.db.models.callbackReplays.findById(r.replay_id).lean<any>().exec();
    expect(audit).toMatchObject({
      run_id: runId,
      group_id: g.groupId,
      requested_by: tokenId,
      webhook_id: `msg_${runId}`,
    });
    const runAfter = (await http('GET', main(`/api/agent-webhooks/runs/${runId}`), { headers: auth(g) })).body.data.run;
    expect(runAfter).toEqual(runBefore);
    const after = await metrics();
    expect(after('delivered', 'replay') - before('delivered', 'replay')).toBe(1);
    await saveHistory(
      stack.temporal.client.workflow.getHandle(callbackReplayWorkflowId(r.replay_id)),
      'webhook-callback-replay.json',
    );

    // Rate limited per group: REPLAY_LIMIT per window, then 429 with Retry-After.
    for (let i = 1; i < REPLAY_LIMIT; i++) expect((await replay(g, runId)).status).toBe(202);
    const limited = await replay(g, runId);
    expect(limited).toMatchObject({ status: 429, body: { error: 'rate_limited' } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('refuses a replay with a clear error: no callback, or deliveries still under way', async () => {
    const g = await setupGroup(stack.db);
    const wf = await addWorkflow(stack.db, g, templateWorkflow('no-callback'));
    const quiet = await trigger(stack.server.mainUrl, g.token, wf, { prompt: 'shh' });
    const quietRun = await waitForRun(stack.server.mainUrl, quiet.body.data.run.run_id, g.token);
    expect(await replay(g, quietRun.run_id)).toMatchObject({
      status: 409,
      body: { error: 'run_has_no_callback' },
    });

    receiver.script([{ status: 200, delayMs: 4000 }]);
    const slow = await trigger(stack.server.mainUrl, g.token, wf, {
      prompt: 'slow',
      callback_url: `${receiver.origin}/hooks/slow`,
    });
    const runId = slow.body.data.run.run_id;
    const pending = await waitForRun(stack.server.mainUrl, runId, g.token);
    expect(pending.callback_status).toBe('pending');
    expect(await replay(g, runId)).toMatchObject({ status: 409, body: { error: 'callback_not_final' } });
    await stack.temporal.client.workflow.getHandle(runId).result();
  });

  it('stops retrying when the receiver answers webhook-delivery: abort-message', async () => {
    const g = await setupGroup(stack.db);
    const before = await metrics();
    receiver.script([{ status: 503, headers: { 'webhook-delivery': 'abort-message' } }]);
    const { runId, run } = await finishedRun(g, 'aborted');
    expect(run).toMatchObject({ callback_status: 'failed', callback_last_status: 503 });
    expect(run.callback_last_error).toMatch(/abort-message/);
    expect(run.run_metadata.callback_attempts).toBe(1);
    expect(received(runId)).toHaveLength(1);
    const log = (await deliveries(g, runId)).body.data.deliveries;
    expect(log).toEqual([expect.objectContaining({ attempt: 1, status_code: 503, outcome: 'stopped' })]);
    const after = await metrics();
    expect(after('stopped', 'delivery') - before('stopped', 'delivery')).toBe(1);
  });

  it('rotates an HMAC secret with an overlap: both signatures while it lasts, then only the new one', async () => {
    const g = await setupGroup(stack.db);
    const oldSecret = g.webhookSecret;
    expect(await rotate(g, { overlap_seconds: 10 * 24 * 3600 })).toMatchObject({ status: 400 });
    const rotated = await rotate(g, { overlap_seconds: 4 });
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.data.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(rotated.body.data.key).toMatchObject({ version: 1, scheme: 'v1', public_key: null, valid_until: null });
    const inForce = await keys(g);
    expect(inForce.map((k) => [k.version, k.scheme, k.valid_until !== null])).toEqual([
      [1, 'v1', false],
      [0, 'v1', true],
    ]);
    expect(JSON.stringify(inForce)).not.toContain(newSecret.slice(6));

    const during = await finishedRun(g, 'overlap');
    const [hit] = received(during.runId);
    expect(schemes(hit)).toEqual(['v1', 'v1']);
    for (const secret of [oldSecret, newSecret]) {
      expect((new Webhook(secret).verify(hit.body, hit.headers) as any).data.run.run_id).toBe(during.runId);
      expect(verifyCallback(secret, hit.body, hit.headers).data.run.run_id).toBe(during.runId);
    }
    expect((await deliveries(g, during.runId)).body.data.deliveries[0].signed_with).toEqual(['v1:1', 'v1:0']);

    const until = Date.parse(rotated.body.data.previous_valid_until);
    await new Promise((r) => setTimeout(r, Math.max(0, until - Date.now() + 200)));
    expect((await keys(g)).map((k) => k.version)).toEqual([1]);
    const afterwards = await finishedRun(g, 'after-overlap');
    const [late] = received(afterwards.runId);
    expect(schemes(late)).toEqual(['v1']);
    expect(() => new Webhook(oldSecret).verify(late.body, late.headers)).toThrow();
    expect(() => verifyCallback(oldSecret, late.body, late.headers)).toThrow(/callback not verified/);
    expect((new Webhook(newSecret).verify(late.body, late.headers) as any).data.run.run_id).toBe(afterwards.runId);
    // A receiver holding both keys through the change verifies either way.
    expect(verifyCallback([oldSecret, newSecret], late.body, late.headers).data.run.run_id).toBe(afterwards.runId);
  });

  it('signs with ed25519 (v1a) once a group rotates to it: the public key is published as whpk_, the private key stays sealed', async () => {
    const g = await setupGroup(stack.db);
    const rotated = await rotate(g, { scheme: 'v1a', overlap_seconds: 600 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toBeNull();
    const publicKey = rotated.body.data.key.public_key;
    expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect((await keys(g)).map((k) => [k.version, k.scheme, k.public_key])).toEqual([
      [1, 'v1a', publicKey],
      [0, 'v1', null],
    ]);
    const stored = await stack.db.models.signingKeys.findById(`${g.groupId}:1`).lean<any>().exec();
    expect(stored.secret_enc).toMatch(/^v1\./);
    expect(stored.secret_enc).not.toContain('MC4CAQAwBQYDK2Vw'); // no PKCS#8 ed25519 header in clear

    // During the overlap: the new v1a signature and the old v1 one.
    const during = await finishedRun(g, 'ed25519-overlap');
    const [hit] = received(during.runId);
    expect(schemes(hit)).toEqual(['v1a', 'v1']);
    expect(ed25519Verifies(publicKey, hit)).toBe(true);
    expect(verifyCallback(publicKey, hit.body, hit.headers).data.run.run_id).toBe(during.runId);
    expect((new Webhook(g.webhookSecret).verify(hit.body, hit.headers) as any).data.run.run_id).toBe(during.runId);
    expect(ed25519Verifies(publicKey, { ...hit, body: hit.body.replace('ed25519-overlap', 'ed25519-overlaq') })).toBe(
      false,
    );

    // Rotating again with no overlap: v1a only; an HMAC receiver no longer verifies, the public key does.
    const next = await rotate(g, { scheme: 'v1a', overlap_seconds: 0 });
    const nextKey = next.body.data.key.public_key;
    expect(nextKey).not.toBe(publicKey);
    const only = await finishedRun(g, 'ed25519-only');
    const [solo] = received(only.runId);
    expect(schemes(solo)).toEqual(['v1a']);
    expect(ed25519Verifies(nextKey, solo)).toBe(true);
    expect(ed25519Verifies(publicKey, solo)).toBe(false);
    expect(() => new Webhook(g.webhookSecret).verify(solo.body, solo.headers)).toThrow();
    expect(verifyCallback(nextKey, solo.body, solo.headers).data.run.run_id).toBe(only.runId);
    expect(() => verifyCallback(publicKey, solo.body, solo.headers)).toThrow(/callback not verified/);

    // A replay is signed with the keys in force now; the SDK asks for it and reads the log.
    const sdk = new AgentClient({ baseUrl: stack.server.mainUrl, agentToken: g.token });
    expect((await sdk.runs.signingKeys()).map((k) => k.public_key)).toEqual([nextKey]);
    const asked = await sdk.runs.replayCallback(only.runId);
    expect(asked).toMatchObject({ run_id: only.runId, webhook_id: `msg_${only.runId}`, status: 'pending' });
    await callbackReplayResult(stack.temporal, asked.replay_id);
    const page = await sdk.runs.deliveries(only.runId, { limit: 10 });
    expect(page.deliveries.map((d) => [d.kind, d.outcome, d.signed_with])).toEqual([
      ['delivery', 'delivered', ['v1a:2']],
      ['replay', 'delivered', ['v1a:2']],
    ]);
    expect(ed25519Verifies(nextKey, received(only.runId)[1])).toBe(true);
    const third = await sdk.runs.rotateSigningKey({ scheme: 'v1', overlap_seconds: 0 });
    expect(third).toMatchObject({ key: { version: 3, scheme: 'v1', public_key: null } });
    expect(third.secret).toMatch(/^whsec_/);
  });
});
