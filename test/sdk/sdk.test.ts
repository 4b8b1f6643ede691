import type { Address, Hex } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { seedDemoCatalog } from '../../scripts/services/demo-vendor/catalog';
import { AgentClient, AgentCommerceError, type SessionInfo, verifyCallback } from '../../sdk/src';
import { ERROR_CATALOG } from '../../shared/composition/error-catalog';
import { DEV_ACCOUNT_INDEX, devAccount } from '../../shared/payments/chain/dev-accounts';
import { ToolRepository } from '../../shared/tools/repository';
import { hmacKey, standardWebhookHeaders } from '../../shared/webhook-runs/callback-sign';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { startTestDemoVendor } from '../support/demo-vendor';
import { type HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { createJob, goodPost, until } from '../support/jobs';
import { TestPayer } from '../support/payer';
import { makeSchedule, scheduleAccount } from '../support/schedules';
import { startTestStack, type TestStack } from '../support/stack';
import { addWorkflow, setupGroup, templateWorkflow } from '../support/webhook-runs';

const merchant = devAccount(DEV_ACCOUNT_INDEX.merchant).address as Address;

/** The SDK's error for `call`, or a failure when it resolves. */
async function sdkError(call: Promise<unknown>): Promise<AgentCommerceError> {
  const outcome = await call.then(
    (value) => ({ value }),
    (err: unknown) => ({ err }),
  );
  if (!('err' in outcome)) throw new Error(`expected an AgentCommerceError, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.err).toBeInstanceOf(AgentCommerceError);
  return outcome.err as AgentCommerceError;
}

describe('the agent SDK against the real stack (API, store, Temporal workers, local chain)', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startTestDemoVendor>>;
  let receiver: HttpsReceiver;
  const allowedAssets = () => [{ network: 'eip155:84532' as const, asset: TestPayer.tokenAddress() }];
  const clientFor = (account: Hex, extra: Partial<ConstructorParameters<typeof AgentClient>[0]> = {}) =>
    new AgentClient({
      baseUrl: stack.server.mainUrl,
      apiUrl: stack.server.apiUrl,
      account,
      x402: { allowedAssets: allowedAssets() },
      ...extra,
    });

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    stack = await startTestStack({
      workers: true,
      env: { CALLBACK_ALLOW_LOOPBACK: 'true', CALLBACK_CA_FILE: receiver.caFile },
    });
    vendor = await startTestDemoVendor();
    await seedDemoCatalog(new ToolRepository(stack.db.models), {
      vendorUrl: vendor.url,
      vendorSecret: vendor.secret,
      secretKey: stack.config.tools.secretsKey,
    });
  }, 120_000);
  afterAll(async () => {
    await vendor?.stop();
    await stack?.stop();
    await receiver?.close();
  });

  describe('identity, credits and tools (one funded wallet, in order)', () => {
    let key: Hex;
    let client: AgentClient;
    let payer: TestPayer;

    it('creates an identity through the service and signs a balance call with it (a session opened on demand)', async () => {
      const identity = await AgentClient.createIdentity(stack.server.mainUrl);
      expect(identity.evmAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
      key = identity.evmPrivateKey;
      client = clientFor(key);
      expect(client.address).toBe(identity.evmAddress.toLowerCase());
      expect(await client.credits.balance()).toEqual({
        success: true,
        message: 'no credits available',
        data: { balance: 0, expiration: null, expires_in_days: null },
      });
    });

    it('buys credits through the x402 handshake: the official client pays on chain once, the grant lands', async () => {
      payer = new TestPayer(key);
      await payer.fund(10);
      const bought = await client.credits.purchase({ credits: 500 });
      expect(bought).toMatchObject({
        success: true,
        data: { status: 'completed', wallet_address: client.address, credits: 500, balance: 500 },
        x402: {
          settled: true,
          network: 'eip155:84532',
          payment: { amount_base_units: '5000000', payer_wallet_address: client.address, pay_to: merchant },
        },
      });
      // A replay by request id alone answers 200 without the x402 block; this purchase brought its payment.
      if (!bought.success || !bought.x402) throw new Error('not settled');
      expect(await payer.paidIn(bought.x402.transaction as Hex, merchant)).toBe(5_000_000n);
      expect(await payer.balance()).toBe(5_000_000n);
      expect((await client.credits.balance()).data.balance).toBe(500);
    });

    it('lists and searches tools, invokes one with credits (charged its price) and one per call with x402', async () => {
      const all = await client.tools.list({ page_size: 50 });
      expect(all.pagination).toMatchObject({ page: 1, page_size: 50, has_more: false });
      const found = await client.tools.search('links');
      expect(found.tools.map((t) => t.name)).toEqual(['text_tools']);

      const stats = await client.tools.invoke<{ words: number }>('text-tools', 'stats', { text: 'one two three' });
      expect(stats.success).toBe(true);
      expect(stats.response.words).toBe(3);
      expect((await client.credits.balance()).data.balance).toBe(499);

      const before = await payer.balance();
      const paid = await client.tools.invokePaid('chain-reader', 'block-facts', {});
      expect(paid).toMatchObject({
        success: true,
        x402: { settled: true, payment: { amount_base_units: '10000', pay_to: merchant } },
      });
      expect(await payer.balance()).toBe(before - 10_000n);
      expect((await client.credits.balance()).data.balance).toBe(499);
    });

    it('invokes by product id, caps its own spending with a budget, reports an issue through the bearer host', async () => {
      const textTools = (await client.tools.list({ query: 'links' })).tools[0];
      const ambiguous = await sdkError(client.tools.invokeById(textTools.product_id!, { text: 'a' }));
      expect([ambiguous.status, ambiguous.code]).toEqual([409, 'action_ambiguous']);
      const repo = new ToolRepository(stack.db.models);
      const echo = await repo.createProduct({ slug: 'sdk-echo', name: 'sdk_echo', description: 'echoes' });
      await repo.addAction('sdk-echo', {
        slug: 'echo',
        credits: 1,
        runner: { kind: 'builtin', handler: 'echo', timeout_ms: 1000 },
      });
      const echoed = await client.tools.invokeById(echo.id, { said: 'hi' });
      expect(JSON.stringify(echoed.response)).toContain('hi');
      expect((await client.credits.balance()).data.balance).toBe(498);
      expect(await client.tools.setBudget({ per_call_credits: 1, daily_credits: null })).toMatchObject({
        wallet_address: client.address,
        per_call_credits: 1,
        set_by: 'wallet',
      });
      const over = await sdkError(
        client.tools.invoke('chain-reader', 'token-balance', { token: vendor.tokenAddress, address: client.address }),
      );
      expect([over.status, over.code]).toEqual([402, 'budget_exceeded']);
      expect((await client.credits.balance()).data.balance).toBe(498);
      await client.tools.setBudget({ per_call_credits: null, daily_credits: null });
      const token = (await client.tokens.issue()).access_token;
      const report = await new AgentClient({
        baseUrl: stack.server.mainUrl,
        apiUrl: stack.server.apiUrl,
        accessToken: token,
      }).tools.reportIssue({ product_id: 'text-tools', error_message: 'stats counts hyphens as words' });
      expect(report.data).toMatchObject({ product_found: true, lookup_method: 'slug', status: 'open' });
    });

    it('mints an act_ token by signing and uses the bearer host: balance, history, catalog, purchase', async () => {
      const issued = await client.tokens.issue({ label: 'sdk test' });
      expect(issued.access_token).toMatch(/^act_/);
      const bearer = new AgentClient({
        baseUrl: stack.server.mainUrl,
        apiUrl: stack.server.apiUrl,
        accessToken: issued.access_token,
      });
      expect((await bearer.credits.balanceByToken()).data.balance).toBe(498);
      const history = await bearer.credits.history({ limit: 5 });
      expect(history.data.grants[0]).toMatchObject({ credit_type: 'x402_purchase', amount_credits: 500 });
      expect(history.data.transactions[0]).toMatchObject({ transaction_type: 'purchase', amount_credits: -1 });
      const page = await bearer.tools.catalog({ page_size: 10 });
      const textTools = page.tools.find((t) => t.name === 'text_tools');
      expect(textTools?.product_id).toBeDefined();
      const bought = await bearer.tools.purchase<{ words: number }>(textTools!.product_id!, {
        action: 'stats',
        text: 'a b',
      });
      expect(bought).toMatchObject({ success: true, data: { words: 2 } });
      expect((await client.credits.balance()).data.balance).toBe(497);
      expect((await client.tokens.list()).map((t) => t.token_id)).toContain(issued.token_id);
      expect(await client.tokens.revoke(issued.token_id)).toEqual({
        token_id: issued.token_id,
        already_revoked: false,
      });
      const revoked = await sdkError(bearer.credits.balanceByToken());
      expect(revoked.status).toBe(401);
      // A holder can revoke the token it holds; the bearer host's health needs nothing.
      const held = new AgentClient({
        baseUrl: stack.server.mainUrl,
        apiUrl: stack.server.apiUrl,
        accessToken: (await client.tokens.issue()).access_token,
      });
      expect(await held.health()).toEqual({ status: 'ok' });
      const { token_id } = await held.tokens.revokeCurrent();
      expect((await client.tokens.list()).find((t) => t.token_id === token_id)?.status).toBe('revoked');
      expect((await sdkError(held.credits.balanceByToken())).status).toBe(401);
    });
  });

  describe('typed errors', () => {
    it('carry the code of each error shape, the message, the status and the catalog hint', async () => {
      const client = clientFor(generatePrivateKey());
      // Tool shape (code).
      const missing = await sdkError(client.tools.invoke('no-such-tool', 'nothing', {}));
      expect([missing.status, missing.code]).toEqual([404, 'product_not_found']);
      expect(missing.hint).toBe(ERROR_CATALOG.product_not_found.action);
      // Validation shape (detail[]).
      const invalid = await sdkError(client.jobs.list({ limit: -1 }));
      expect([invalid.status, invalid.code]).toEqual([422, 'validation_error']);
      expect(invalid.message).toMatch(/limit/);
      // Credits: a wallet with none.
      const poor = await sdkError(client.tools.invoke('text-tools', 'stats', { text: 'x' }));
      expect([poor.status, poor.code]).toEqual([402, 'insufficient_credits']);
      expect(poor.hint).toBe(ERROR_CATALOG.insufficient_credits.action);
      // Client-side: no token for the endpoint.
      const noToken = await sdkError(client.runs.get('run_x'));
      expect([noToken.status, noToken.code]).toEqual([0, 'sdk_missing_token']);
    });

    it('renews a session nonce the service does not know and signs again under the same request id', async () => {
      const key = generatePrivateKey();
      const client = clientFor(key);
      await client.openSession();
      // Another client's nonce for the same wallet is fine; an unknown one is replaced once.
      (client as unknown as { ctx: { nonce: { value: string; renewAt: number } } }).ctx.nonce = {
        value: 'sess_unknown_0000',
        renewAt: Date.now() + 60_000,
      };
      expect((await client.credits.balance()).data.balance).toBe(0);
    });
  });

  describe('session store', () => {
    it('reuses a kept session nonce across clients, and replaces a kept one the service does not know', async () => {
      const key = generatePrivateKey();
      const saved: SessionInfo[] = [];
      let kept: SessionInfo | undefined;
      const sessionStore = {
        load: async (wallet: string, baseUrl: string) =>
          kept && kept.wallet_address.toLowerCase() === wallet && baseUrl === stack.server.mainUrl ? kept : undefined,
        save: async (session: SessionInfo) => {
          saved.push(session);
          kept = session;
        },
      };
      await clientFor(key, { sessionStore }).credits.balance();
      await clientFor(key, { sessionStore }).jobs.list();
      expect(saved.length).toBe(1);
      kept = { ...kept!, session_nonce: 'sess_forgotten_000' };
      expect((await clientFor(key, { sessionStore }).credits.balance()).data.balance).toBe(0);
      expect(saved.length).toBe(2);
      expect(saved[1].session_nonce).not.toBe(saved[0].session_nonce);
    });
  });

  describe('webhook runs and callbacks', () => {
    it('triggers a run with the agent token, waits with backoff and progress, gets it; cancel of a finished run is 409', async () => {
      const group = await setupGroup(stack.db);
      const workflowId = await addWorkflow(stack.db, group, templateWorkflow());
      const runs = new AgentClient({ baseUrl: stack.server.mainUrl, agentToken: group.token }).runs;
      const triggered = await runs.trigger(workflowId, { prompt: 'Ada', request_id: 'sdk-run-1' });
      expect(triggered).toMatchObject({ http_status: 200, run: { workflow_id: workflowId, status: 'queued' } });
      expect(triggered.status_url).toBe(
        `${stack.config.publicBaseUrl}/api/agent-webhooks/runs/${triggered.run.run_id}`,
      );

      const seen: string[] = [];
      const run = await runs.wait(triggered.run.run_id, { timeoutMs: 60_000, onProgress: (r) => seen.push(r.status) });
      expect(run).toMatchObject({ status: 'completed', response_text: 'Hello, Ada!' });
      expect(seen[seen.length - 1]).toBe('completed');
      expect(new Set(seen).size).toBe(seen.length);
      expect(await runs.get(run.run_id)).toMatchObject({ run_id: run.run_id, status: 'completed' });

      // The wait holds each request until the run ends (wait_seconds): a few requests, not a poll every 1 ms.
      const asked: string[] = [];
      const counted = new AgentClient({
        baseUrl: stack.server.mainUrl,
        agentToken: group.token,
        fetch: (input, init) => (asked.push(String(input)), globalThis.fetch(input, init)),
      }).runs;
      const next = await counted.trigger(workflowId, { prompt: 'Grace' });
      const waited = await counted.wait(next.run.run_id, { timeoutMs: 60_000, intervalMs: 1, maxIntervalMs: 1 });
      expect(waited).toMatchObject({ status: 'completed', response_text: 'Hello, Grace!' });
      const gets = asked.filter((url) => url.includes(`/runs/${next.run.run_id}`));
      expect(gets.every((url) => url.includes('wait_seconds='))).toBe(true);
      expect(gets.length).toBeLessThanOrEqual(3);

      const again = await runs.trigger(workflowId, { prompt: 'Ada', request_id: 'sdk-run-1' });
      expect(again.run.run_id).toBe(run.run_id);
      const late = await sdkError(runs.cancel(run.run_id));
      expect([late.status, late.code]).toEqual([409, 'run_already_terminal']);
      expect(late.hint).toBe(ERROR_CATALOG.run_already_terminal.action);
    });

    it('waits on the signed callback: the service delivers the final run to an HTTPS receiver, verifyCallback proves it', async () => {
      const group = await setupGroup(stack.db);
      const workflowId = await addWorkflow(stack.db, group, templateWorkflow('called back'));
      const runs = new AgentClient({ baseUrl: stack.server.mainUrl, agentToken: group.token }).runs;
      const { run } = await runs.trigger(workflowId, { prompt: 'Grace', callback_url: `${receiver.origin}/runs` });
      const callback = receiver
        .waitFor(1, 120_000)
        .then(
          () => verifyCallback(group.webhookSecret, receiver.received[0].body, receiver.received[0].headers).data.run,
        );
      // Polls 150 s apart: unless the first poll already saw the end, the callback ends the wait,
      // which on a loaded machine may take well over the 45 s a minute-apart poll left it.
      const started = Date.now();
      const final = await runs.wait(run.run_id, { intervalMs: 150_000, timeoutMs: 170_000, callback });
      expect(Date.now() - started).toBeLessThan(120_000);
      expect(final).toMatchObject({ run_id: run.run_id, status: 'completed', response_text: 'Hello, Grace!' });
      const delivered = await callback;
      expect(delivered).toMatchObject({ run_id: run.run_id, status: 'completed' });
      const hit = receiver.received[0];
      expect(() => verifyCallback(group.webhookSecret, hit.body.replace('Grace', 'Grace!'), hit.headers)).toThrow(
        AgentCommerceError,
      );
      expect(() => verifyCallback(`whsec_${Buffer.alloc(24, 9).toString('base64')}`, hit.body, hit.headers)).toThrow(
        /callback not verified/,
      );
    });

    it('verifies a Standard Webhooks callback signed as the service signs it, and refuses a tampered one', () => {
      const secret = `whsec_${Buffer.alloc(24, 3).toString('base64')}`;
      const body = JSON.stringify({
        type: 'webhook_run.completed',
        timestamp: new Date().toISOString(),
        data: { run: { run_id: 'run_1', status: 'completed' } },
      });
      const headers = standardWebhookHeaders(
        [{ scheme: 'v1', version: 0, secret: hmacKey(secret) }],
        'msg_1',
        body,
        new Date(),
      );
      expect(verifyCallback(secret, body, headers).data.run.run_id).toBe('run_1');
      expect(verifyCallback(secret, Buffer.from(body), new Headers(headers)).type).toBe('webhook_run.completed');
      const tampered = (() => {
        try {
          verifyCallback(secret, body.replace('run_1', 'run_2'), headers);
        } catch (err) {
          return err as AgentCommerceError;
        }
        throw new Error('verified a tampered body');
      })();
      expect(tampered.code).toBe('sdk_callback_invalid');
    });
  });

  describe('schedules', () => {
    it('lists due occurrences, claims, releases, claims again and advances once', async () => {
      const account = await scheduleAccount(stack.db, 'sdk');
      const schedule = await makeSchedule(stack.db, account, { dueMinutesAgo: 5 });
      const schedules = new AgentClient({
        baseUrl: stack.server.mainUrl,
        scheduleKey: { apiKey: account.apiKey, budgetKey: account.budgetKey },
      }).schedules;
      const due = await schedules.due();
      expect(due.data.occurrences.map((o) => o.schedule_id)).toEqual([schedule._id]);
      expect(due.help_doc).toBe('docs/schedules.md#due');

      const claim = (await schedules.claim({ schedule_id: schedule._id, lease_seconds: 60 })).data;
      expect(claim).toMatchObject({ schedule_id: schedule._id, lease_seconds: 60 });
      const released = (await schedules.release(schedule._id, { due_at: claim.due_at, claim_token: claim.claim_token }))
        .data;
      expect(released.released).toBe(true);
      const stale = await sdkError(
        schedules.advance(schedule._id, { due_at: claim.due_at, claim_token: claim.claim_token }),
      );
      expect([stale.status, stale.code]).toEqual([409, expect.stringMatching(/^claim_/)]);

      const again = (await schedules.claim({ schedule_id: schedule._id })).data;
      const advanced = (
        await schedules.advance(schedule._id, {
          due_at: again.due_at,
          claim_token: again.claim_token,
          outcome: 'success',
          external_run_id: 'ext-1',
        })
      ).data;
      expect(advanced).toMatchObject({
        already_advanced: false,
        schedule: { last_outcome: 'success', last_external_run_id: 'ext-1' },
      });
      const twice = (
        await schedules.advance(schedule._id, {
          due_at: again.due_at,
          claim_token: again.claim_token,
          outcome: 'success',
        })
      ).data;
      expect(twice.already_advanced).toBe(true);
    });
  });

  describe('jobs and workflow sessions (signed)', () => {
    it('lists, reserves, reads and completes a job', async () => {
      const job = await createJob(stack.db.models, { title: 'SDK job' });
      const client = clientFor(generatePrivateKey());
      const list = await client.jobs.list({ limit: 50 });
      expect(list.jobs.map((j) => j.job_id)).toContain(job._id);
      const reservation = await client.jobs.reserve(job._id);
      expect(reservation).toMatchObject({ job_id: job._id, status: 'active', job_kind: 'social_share' });
      expect((await client.jobs.status(job._id)).reservation?.reservation_id).toBe(reservation.reservation_id);
      const completion = await client.jobs.complete(job._id, {
        proof_text: 'posted it',
        reservation_id: reservation.reservation_id,
        social_posts: [goodPost()],
      });
      expect(completion.reservation_id).toBe(reservation.reservation_id);
      const status = await until(
        () => client.jobs.status(job._id),
        (s) => s.completion !== null,
      );
      expect(status.completion?.completion_id).toBe(completion.completion_id);
    });

    it("creates, edits and publishes the workflow of a workflow-creation job, signed or with the reservation's token", async () => {
      const job = await createJob(stack.db.models, {
        kind: 'workflow_creation',
        title: 'Build a greeter',
        reward_credits: 10,
        target_url: null,
        platforms: [],
      });
      const client = clientFor(generatePrivateKey());
      const reservation = await client.jobs.reserve(job._id);
      expect(reservation.workflow_token).toEqual(expect.any(String));
      const greet = { id: 'greet', type: 'template', template: 'Hello {{prompt}}' };
      const created = await client.jobs.createWorkflow(job._id, { name: 'Greeter', nodes: [greet], edges: [] });
      expect(created).toMatchObject({
        job_id: job._id,
        owner_wallet: client.address,
        name: 'Greeter',
        status: 'draft',
      });
      const edited = await client.jobs.updateWorkflow(job._id, created.workflow_id, { description: 'says hello' });
      expect(edited.description).toBe('says hello');
      const published = await client.jobs.publishWorkflow(job._id, created.workflow_id);
      expect(published).toMatchObject({ status: 'published', published_version: '1.0.0' });
      // The token alone (no key) is enough for the same calls.
      const tokenOnly = new AgentClient({ baseUrl: stack.server.mainUrl }).jobs;
      const minor = await tokenOnly.publishWorkflow(
        job._id,
        created.workflow_id,
        { bump: 'minor' },
        { workflowToken: reservation.workflow_token },
      );
      expect(minor.published_version).toBe('1.1.0');
      const forged = await sdkError(
        tokenOnly.publishWorkflow(
          job._id,
          created.workflow_id,
          {},
          { workflowToken: `${reservation.workflow_token}x` },
        ),
      );
      expect(forged.status).toBe(401);
    });

    it('starts a wallet session of a published workflow, fetches its result, lists it active, ends it', async () => {
      const workflow = await new WorkflowRepository(stack.db.models).create({
        name: 'SDK greeter',
        nodes: [{ id: 'greet', type: 'template', template: 'Hello from {{metadata.instance_id}}' }],
        edges: [],
        status: 'published',
      });
      const client = clientFor(generatePrivateKey());
      expect((await client.workflows.list({ query: 'SDK greeter' })).workflows.map((w) => w.workflow_id)).toEqual([
        workflow._id,
      ]);
      const started = await client.workflows.start(workflow._id, { instance_id: 'tab-1' });
      expect(started).toMatchObject({
        workflow_id: workflow._id,
        instance_id: 'tab-1',
        status: 'active',
        resumed: false,
      });
      const done = await until(
        () => client.workflows.fetch(workflow._id, { instance_id: 'tab-1' }),
        (s) => s.run.status === 'completed',
      );
      expect(done.run.response_text).toBe('Hello from tab-1');
      expect((await client.workflows.active()).map((s) => s.workflow_session_id)).toEqual([
        started.workflow_session_id,
      ]);
      const ended = await client.workflows.end(workflow._id, { workflow_session_id: started.workflow_session_id });
      expect(ended).toMatchObject({ status: 'ended', already_ended: false });
      expect(await client.workflows.active()).toEqual([]);
    });
  });
});
