import { seedDemoCatalog } from '../../scripts/services/demo-vendor/catalog';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { JobWorkflowRepository } from '../../shared/jobs/job-workflow-repository';
import { ToolRepository } from '../../shared/tools/repository';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { sessionWorkflowId } from '../../temporal/workflow-session/ids';
import { TestAgent } from '../support/agent';
import { startTestDemoVendor } from '../support/demo-vendor';
import { replayHistory } from '../support/histories';
import { http } from '../support/http';
import { until } from '../support/jobs';
import { startTestStack, TestStack } from '../support/stack';
import { startScriptedVendor } from '../support/vendor';

const greetGraph = {
  nodes: [
    { id: 'greet', type: 'template', template: 'Hello from {{metadata.instance_id}}' },
    { id: 'check', type: 'condition', input: '{{nodes.greet.output}}', operator: 'contains', value: 'hello' },
    { id: 'yes', type: 'template', template: 'yes: {{nodes.greet.output}}' },
    { id: 'no', type: 'template', template: 'no' },
  ],
  edges: [
    { from: 'greet', to: 'check' },
    { from: 'check', to: 'yes', when: true },
    { from: 'check', to: 'no', when: false },
  ],
};

describe('published workflows (public listings) and wallet sessions on the real stack', () => {
  let stack: TestStack;
  let workflows: WorkflowRepository;
  let links: JobWorkflowRepository;
  let greeter: string;
  let toolFlow: string;
  let walletFlow: string;
  let draft: string;
  let paidFlow: string;
  let vendor: Awaited<ReturnType<typeof startTestDemoVendor>>;
  let slowVendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let slowFlow: string;
  let pricedFlow: string;
  let ambiguousFlow: string;
  let credentialFlow: string;
  let ledger: LedgerStore;
  let tools: ToolRepository;
  const publisher = '0x' + 'ab'.repeat(20);

  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    workflows = new WorkflowRepository(stack.db.models);
    links = new JobWorkflowRepository(stack.db.models);
    ledger = new LedgerStore(stack.db.models);
    tools = new ToolRepository(stack.db.models);
    vendor = await startTestDemoVendor();
    await seedDemoCatalog(tools, {
      vendorUrl: vendor.url,
      vendorSecret: vendor.secret,
      secretKey: stack.config.tools.secretsKey,
    });
    paidFlow = (
      await workflows.create({
        name: 'Text stats',
        nodes: [
          { id: 'greet', type: 'template', template: 'Hello from {{metadata.instance_id}} and friends' },
          {
            id: 'stats',
            type: 'tool',
            product: 'text-tools',
            action: 'stats',
            parameters: { text: '{{nodes.greet.output}}' },
          },
          { id: 'say', type: 'template', template: '{{nodes.stats.output.words}} words' },
        ],
        edges: [
          { from: 'greet', to: 'stats' },
          { from: 'stats', to: 'say' },
        ],
        status: 'published',
      })
    )._id;
    // text-tools/stats (1 credit) by slug, chain-reader/token-balance (2) by product id.
    const chain = (await tools.getProduct({ slug: 'chain-reader' }))!;
    pricedFlow = (
      await workflows.create({
        name: 'Priced',
        nodes: [
          { id: 's', type: 'tool', product: 'text-tools', action: 'stats', parameters: { text: 'x' } },
          {
            id: 'b',
            type: 'tool',
            product: chain.id,
            action: 'token-balance',
            parameters: { token: '0x' + '11'.repeat(20), address: '0x' + '22'.repeat(20) },
          },
          { id: 'm', type: 'model', prompt: '{{nodes.s.output}}' },
        ],
        edges: [
          { from: 's', to: 'b' },
          { from: 'b', to: 'm' },
        ],
        status: 'published',
      })
    )._id;
    ambiguousFlow = (
      await workflows.create({
        name: 'No action named',
        nodes: [{ id: 't', type: 'tool', product: 'text-tools', parameters: { text: 'x' } }],
        edges: [],
        status: 'published',
      })
    )._id;
    credentialFlow = (
      await workflows.create({
        name: 'Needs a key',
        credentials: ['VENDOR_KEY'],
        nodes: [
          {
            id: 't',
            type: 'tool',
            product: 'text-tools',
            action: 'stats',
            parameters: { text: '{{credentials.VENDOR_KEY}}' },
          },
        ],
        edges: [],
        status: 'published',
      })
    )._id;
    slowVendor = await startScriptedVendor(() => ({ status: 200, body: { ok: true }, delayMs: 30_000 }));
    await tools.createProduct({ slug: 'slow-tool', name: 'slow_tool', description: 'Answers after 30 s' });
    await tools.addAction('slow-tool', {
      slug: 'wait',
      credits: 3,
      x402_usd: null,
      parameters_schema: { type: 'object', properties: {}, additionalProperties: false },
      runner: { kind: 'http', url: `${slowVendor.url}/wait`, method: 'POST', timeout_ms: 60_000 },
    });
    slowFlow = (
      await workflows.create({
        name: 'Slow tool',
        nodes: [{ id: 'wait', type: 'tool', product: 'slow-tool', action: 'wait', parameters: {} }],
        edges: [],
        status: 'published',
      })
    )._id;
    greeter = (
      await workflows.create({
        name: 'Greeter',
        description: 'says hello to an instance',
        ...greetGraph,
        status: 'published',
      })
    )._id;
    toolFlow = (
      await workflows.create({
        name: 'Weather lookup',
        nodes: [{ id: 'w', type: 'tool', product: 'demo-weather', action: 'current', parameters: { city: 'Paris' } }],
        edges: [],
        status: 'published',
      })
    )._id;
    draft = (await workflows.create({ name: 'Greeter draft', ...greetGraph }))._id;
    const now = new Date();
    const wf = await workflows.createDraft({
      name: 'Invoice helper',
      description: 'made for a job',
      ...greetGraph,
      now,
    });
    await links.create({
      _id: wf._id,
      job_id: 'job_x',
      wallet: publisher,
      reservation_id: 'res_x',
      categories: ['finance'],
      industry_tags: ['accounting'],
      time_saved_minutes: 12,
      mcp_server_name: null,
      default_export_target: null,
      created_at: now,
      updated_at: now,
    });
    await workflows.publish(wf._id, '1.0.0');
    await workflows.updateDraft(wf._id, { name: 'Invoice helper' }, new Date());
    await workflows.publish(wf._id, '1.1.0');
    walletFlow = wf._id;
  });
  afterAll(async () => {
    await vendor?.stop();
    await slowVendor?.stop();
    await stack.stop();
  });

  async function agent(): Promise<TestAgent> {
    const a = new TestAgent(stack.server.mainUrl);
    await a.startSession();
    return a;
  }
  const list = (q = '') => http('GET', `${stack.server.mainUrl}/api/external/workflows${q}`);
  const start = (a: TestAgent, id: string, body: Record<string, unknown> = {}) =>
    a.call(`/api/external/workflows/${id}/start`, 'workflow_start', body, id);
  const fetchS = (a: TestAgent, id: string, body: Record<string, unknown> = {}) =>
    a.call(`/api/external/workflows/${id}/fetch`, 'workflow_fetch', body, id);
  const end = (a: TestAgent, id: string, body: Record<string, unknown> = {}) =>
    a.call(`/api/external/workflows/${id}/end`, 'workflow_end', body, id);
  const active = (a: TestAgent, body: Record<string, unknown> = {}) =>
    a.call('/api/external/workflows/active', 'workflow_active', body);

  describe('listings', () => {
    it('lists published workflows only, with latest version, nodes summary, price estimate and publisher', async () => {
      const res = await list('?limit=100');
      expect(res.status).toBe(200);
      const ids = res.body.data.workflows.map((w: { workflow_id: string }) => w.workflow_id);
      expect(ids).toEqual(expect.arrayContaining([greeter, toolFlow, walletFlow]));
      expect(ids).not.toContain(draft);
      const g = res.body.data.workflows.find((w: { workflow_id: string }) => w.workflow_id === greeter);
      expect(g).toMatchObject({
        name: 'Greeter',
        latest_version: '1.0.0',
        publisher: { type: 'platform', id: 'platform' },
        nodes_summary: { count: 4, by_type: { template: 3, condition: 1 }, tools: [], uses_model: false },
        price_estimate: { credits: 0, basis: 'catalog_prices' },
      });
      const t = res.body.data.workflows.find((w: { workflow_id: string }) => w.workflow_id === toolFlow);
      expect(t.nodes_summary.tools).toEqual([{ node_id: 'w', product: 'demo-weather', action: 'current' }]);
      expect(t.price_estimate).toBeNull(); // demo-weather is not in the catalog: unknown, not a partial sum
      const byId = (id: string) => res.body.data.workflows.find((x: { workflow_id: string }) => x.workflow_id === id);
      expect(byId(pricedFlow).price_estimate).toEqual({ credits: 1 + 2, basis: 'catalog_prices' });
      expect(byId(paidFlow).price_estimate).toEqual({ credits: 1, basis: 'catalog_prices' });
      expect(byId(ambiguousFlow).price_estimate).toBeNull(); // text-tools has two actions and the node names none
      const w = res.body.data.workflows.find((x: { workflow_id: string }) => x.workflow_id === walletFlow);
      expect(w).toMatchObject({
        latest_version: '1.1.0',
        publisher: { type: 'wallet', id: publisher },
        job_id: 'job_x',
        categories: ['finance'],
        time_saved_minutes: 12,
      });
    });

    it('filters by query, categories, industry_tags and publisher; pages with limit/skip; bounds are 422', async () => {
      const byQuery = await list('?query=GREET');
      expect(byQuery.body.data.workflows.map((w: { workflow_id: string }) => w.workflow_id)).toEqual([greeter]);
      const byCat = await list('?categories=finance,travel');
      expect(byCat.body.data.workflows.map((w: { workflow_id: string }) => w.workflow_id)).toEqual([walletFlow]);
      expect((await list('?industry_tags=farming')).body.data.workflows).toEqual([]);
      const byPublisher = await list(`?publisher=${publisher.toUpperCase().replace('0X', '0x')}`);
      expect(byPublisher.body.data.workflows.map((w: { workflow_id: string }) => w.workflow_id)).toEqual([walletFlow]);
      const page = await list('?limit=1&skip=1');
      expect(page.body.data).toMatchObject({ limit: 1, skip: 1, has_more: true });
      expect(page.body.data.workflows).toHaveLength(1);
      const bad = await list('?limit=101&skip=-1');
      expect(bad.status).toBe(422);
      expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(['query.limit', 'query.skip']);
    });

    it('details a published workflow (versions, outline without templates or parameters); a draft or unknown id is 404', async () => {
      const res = await http('GET', `${stack.server.mainUrl}/api/external/workflows/${walletFlow}`);
      expect(res.status).toBe(200);
      expect(res.body.data.versions.map((v: { version: string }) => v.version)).toEqual(['1.0.0', '1.1.0']);
      expect(res.body.data.nodes[0]).toEqual({ id: 'greet', type: 'template' });
      expect(res.body.data.edges).toHaveLength(3);
      const tool = await http('GET', `${stack.server.mainUrl}/api/external/workflows/${toolFlow}`);
      expect(tool.body.data.nodes[0]).toEqual({ id: 'w', type: 'tool', product: 'demo-weather', action: 'current' });
      expect(JSON.stringify(tool.body.data)).not.toContain('Paris');
      for (const id of [draft, 'wf_nope']) {
        const missing = await http('GET', `${stack.server.mainUrl}/api/external/workflows/${id}`);
        expect([missing.status, missing.body.error_code]).toEqual([404, 'workflow_not_found']);
      }
    });
  });

  describe('sessions', () => {
    it('start runs the published version through the node activities; start again resumes; instance_id makes another; fetch and active show them', async () => {
      const a = await agent();
      const first = await start(a, greeter);
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({
        workflow_id: greeter,
        version: '1.0.0',
        instance_id: 'default',
        status: 'active',
        resumed: false,
      });
      const id = first.body.data.workflow_session_id;
      expect(id).toMatch(/^wss_/);

      const done = await until(
        () => fetchS(a, greeter),
        (r) => r.body.data?.run.status === 'completed',
      );
      expect(done.body.data.run).toMatchObject({
        status: 'completed',
        response_text: 'yes: Hello from default',
        credits_charged: 0,
      });
      expect(
        done.body.data.run.nodes.map((n: { node_id: string; status: string }) => `${n.node_id}:${n.status}`),
      ).toEqual(['greet:completed', 'check:completed', 'yes:completed', 'no:skipped']);

      const again = await start(a, greeter);
      expect(again.body.data).toMatchObject({ workflow_session_id: id, resumed: true });
      const other = await start(a, greeter, { instance_id: 'tab-2' });
      expect(other.body.data.workflow_session_id).not.toBe(id);
      const otherDone = await until(
        () => fetchS(a, greeter, { instance_id: 'tab-2' }),
        (r) => r.body.data?.run.status === 'completed',
      );
      expect(otherDone.body.data.run.response_text).toBe('yes: Hello from tab-2');

      const all = await active(a);
      expect(all.body.data.sessions.map((s: { workflow_session_id: string }) => s.workflow_session_id).sort()).toEqual(
        [id, other.body.data.workflow_session_id].sort(),
      );
      const perInstance = await active(a, { instance_id: 'tab-2' });
      expect(perInstance.body.data.sessions.map((s: { instance_id: string }) => s.instance_id)).toEqual(['tab-2']);

      const ambiguous = await end(a, greeter);
      expect([ambiguous.status, ambiguous.body.error_code]).toEqual([409, 'session_ambiguous']);
      await end(a, greeter, { workflow_session_id: other.body.data.workflow_session_id });
    });

    it('20 concurrent starts for one instance make one session (the active-session key is one insert)', async () => {
      const a = await agent();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => start(a, walletFlow, { instance_id: 'race' })),
      );
      expect(answers.every((r) => r.status === 200)).toBe(true);
      expect(new Set(answers.map((r) => r.body.data.workflow_session_id)).size).toBe(1);
      expect(answers.filter((r) => r.body.data.resumed === false)).toHaveLength(1);
      expect(await stack.db.models.workflowSessions.countDocuments({ wallet: a.wallet, workflow_id: walletFlow })).toBe(
        1,
      );
      await end(a, walletFlow);
    });

    it('end writes the final state; it stays readable; the next start is a new session; the history replays', async () => {
      const a = await agent();
      const s = await start(a, greeter);
      const id = s.body.data.workflow_session_id;
      await until(
        () => fetchS(a, greeter),
        (r) => r.body.data?.run.status === 'completed',
      );
      const ended = await end(a, greeter);
      expect(ended.status).toBe(200);
      expect(ended.body.data).toMatchObject({
        workflow_session_id: id,
        status: 'ended',
        end_reason: 'ended_by_wallet',
        already_ended: false,
      });
      expect(ended.body.data.ended_at).toBeTruthy();
      const stored = await stack.db.models.workflowSessions.findById(id).lean();
      expect(stored).toMatchObject({ status: 'ended', end_reason: 'ended_by_wallet' });

      const later = await fetchS(a, greeter, { workflow_session_id: id });
      expect(later.body.data).toMatchObject({
        status: 'ended',
        run: { status: 'completed', response_text: 'yes: Hello from default' },
      });
      const twice = await end(a, greeter, { workflow_session_id: id });
      expect(twice.body.data).toMatchObject({ status: 'ended', already_ended: true });
      expect((await active(a)).body.data.sessions).toEqual([]);
      const fresh = await start(a, greeter);
      expect(fresh.body.data.workflow_session_id).not.toBe(id);
      await end(a, greeter);

      const handle = stack.temporal.client.workflow.getHandle(sessionWorkflowId(id));
      expect((await handle.describe()).status.name).toBe('COMPLETED');
      await replayHistory('workflow-session', await handle.fetchHistory());
    });

    it('another wallet’s session is 404 for fetch and end, and stays active; unknown workflow is 404', async () => {
      const owner = await agent();
      const stranger = await agent();
      const s = await start(owner, greeter, { instance_id: 'mine' });
      const id = s.body.data.workflow_session_id;
      const peek = await fetchS(stranger, greeter, { workflow_session_id: id });
      expect([peek.status, peek.body.error_code]).toEqual([404, 'session_not_found']);
      const kill = await end(stranger, greeter, { workflow_session_id: id });
      expect([kill.status, kill.body.error_code]).toEqual([404, 'session_not_found']);
      expect(kill.body).toHaveProperty('request_id');
      const none = await end(stranger, greeter);
      expect([none.status, none.body.error_code]).toEqual([404, 'session_not_found']);
      expect((await stack.db.models.workflowSessions.findById(id).lean())?.status).toBe('active');
      const nothing = await start(owner, draft);
      expect([nothing.status, nothing.body.error_code]).toEqual([404, 'workflow_not_found']);
      const tampered = await http('POST', `${stack.server.mainUrl}/api/external/workflows/${greeter}/start`, {
        body: { ...(await owner.envelope('workflow_start', { instance_id: 'a' }, greeter)), instance_id: 'b' },
      });
      expect(tampered.status).toBe(401);
      await end(owner, greeter, { workflow_session_id: id });
    });

    const purchases = async (wallet: string) =>
      (await stack.db.models.creditTransactions.find({ user_id: wallet }).lean()).filter(
        (t) => t.transaction_type === 'purchase',
      );

    it('a paid tool node charges the wallet the action price once (hold, vendor call, capture); fetch shows the output and credits_charged; the history replays', async () => {
      const a = await agent();
      await ledger.grant({ wallet: a.wallet, credits: 5, creditType: 'admin_grant' });
      const s = await start(a, paidFlow);
      const id = s.body.data.workflow_session_id;
      const done = await until(
        () => fetchS(a, paidFlow),
        (r) => !['pending', 'running'].includes(r.body.data?.run.status),
      );
      expect(done.body.data.run).toMatchObject({ status: 'completed', response_text: '5 words', credits_charged: 1 });
      const stats = done.body.data.run.nodes.find((n: { node_id: string }) => n.node_id === 'stats');
      expect(stats).toMatchObject({
        status: 'completed',
        credits_charged: 1,
        error: null,
        output: { words: 5 },
        transaction_id: expect.stringContaining(`session:${id}:stats`),
      });

      // Resuming and fetching again run nothing twice.
      expect((await start(a, paidFlow)).body.data).toMatchObject({ workflow_session_id: id, resumed: true });
      await fetchS(a, paidFlow);
      const ended = await end(a, paidFlow);
      expect(ended.body.data.run.credits_charged).toBe(1);
      expect((await ledger.balance(a.wallet)).balance).toBe(4);
      const rows = await purchases(a.wallet);
      expect(rows).toHaveLength(1);
      expect(rows[0].amount_credits).toBe(-1);
      expect(JSON.parse(rows[0].details!)).toMatchObject({
        product: 'text-tools',
        action: 'stats',
        meta: { workflow_session_id: id, node_id: 'stats' },
      });

      const handle = stack.temporal.client.workflow.getHandle(sessionWorkflowId(id));
      expect((await handle.describe()).status.name).toBe('COMPLETED');
      await replayHistory('workflow-session-tool', await handle.fetchHistory());
    });

    it('a wallet without credits gets insufficient_credits on the tool node, recorded with its code; nothing is held or charged', async () => {
      const a = await agent();
      await start(a, paidFlow);
      const r = await until(
        () => fetchS(a, paidFlow),
        (x) => !['pending', 'running'].includes(x.body.data?.run.status),
      );
      expect(r.body.data.run).toMatchObject({
        status: 'failed',
        error_code: 'insufficient_credits',
        credits_charged: 0,
        response_text: 'Hello from default and friends',
      });
      expect(r.body.data.run.nodes.map((n: { node_id: string; status: string }) => `${n.node_id}:${n.status}`)).toEqual(
        ['greet:completed', 'stats:failed'],
      );
      expect(r.body.data.run.nodes[1]).toMatchObject({ error_code: 'insufficient_credits', credits_charged: 0 });
      expect(r.body.data.run.nodes[1].error).toContain('costs 1 credits');
      expect(r.body.data.status).toBe('active');
      await end(a, paidFlow);
      expect((await ledger.balance(a.wallet)).balance).toBe(0);
      expect(await stack.db.models.creditTransactions.countDocuments({ user_id: a.wallet })).toBe(0);
    });

    it('the wallet’s tool budget gates a session’s tool node as it gates the signed invoke: budget_exceeded, a distinct code, nothing charged', async () => {
      const a = await agent();
      await ledger.grant({ wallet: a.wallet, credits: 5, creditType: 'admin_grant' });
      await tools.setBudget(a.wallet, { per_call_credits: null, daily_credits: 0 }, 'wallet');
      await start(a, paidFlow);
      const r = await until(
        () => fetchS(a, paidFlow),
        (x) => !['pending', 'running'].includes(x.body.data?.run.status),
      );
      expect(r.body.data.run).toMatchObject({ status: 'failed', error_code: 'budget_exceeded', credits_charged: 0 });
      expect(r.body.data.run.nodes[1]).toMatchObject({
        node_id: 'stats',
        status: 'failed',
        error_code: 'budget_exceeded',
      });
      await end(a, paidFlow);
      expect((await ledger.balance(a.wallet)).balance).toBe(5);
      expect(await purchases(a.wallet)).toHaveLength(0);
    });

    it('end while a tool call runs cancels it: the vendor call is aborted, the hold released, the node and run cancelled', async () => {
      const a = await agent();
      await ledger.grant({ wallet: a.wallet, credits: 5, creditType: 'admin_grant' });
      const before = slowVendor.calls.length;
      await start(a, slowFlow);
      for (let i = 0; slowVendor.calls.length === before && i < 300; i++) await new Promise((r) => setTimeout(r, 100));
      expect(slowVendor.calls.length).toBe(before + 1);
      expect((await ledger.balance(a.wallet)).balance).toBe(2); // held
      const ended = await end(a, slowFlow);
      expect(ended.status).toBe(200);
      expect(ended.body.data).toMatchObject({
        status: 'ended',
        run: { status: 'cancelled', error_code: 'session_ended', credits_charged: 0 },
      });
      expect(ended.body.data.run.nodes[0]).toMatchObject({
        node_id: 'wait',
        status: 'cancelled',
        error_code: 'session_ended',
      });
      expect((await ledger.balance(a.wallet)).balance).toBe(5);
      expect(await purchases(a.wallet)).toHaveLength(0);
    });

    it('a workflow with a model node is refused up front with setup_required when the deployment has no model endpoint: no session, no approval request', async () => {
      const a = await agent();
      const r = await start(a, pricedFlow);
      expect([r.status, r.body.error_code]).toEqual([409, 'setup_required']);
      expect(r.body.data).toEqual({
        setup_request_ids: [],
        missing_setup: [
          { kind: 'model_endpoint', message: expect.stringContaining('MODEL_API_URL'), approval_request_id: null },
        ],
      });
      expect(await stack.db.models.workflowSessions.countDocuments({ wallet: a.wallet })).toBe(0);
      expect(await stack.db.models.approvalRequests.countDocuments({})).toBe(0);
      expect((await active(a)).body.data.sessions).toEqual([]);
    });

    it('a tool node whose parameters use workspace credentials is setup_required in a session (a wallet has none); nothing is charged', async () => {
      const a = await agent();
      await ledger.grant({ wallet: a.wallet, credits: 5, creditType: 'admin_grant' });
      await start(a, credentialFlow);
      const r = await until(
        () => fetchS(a, credentialFlow),
        (x) => !['pending', 'running'].includes(x.body.data?.run.status),
      );
      expect(r.body.data.run).toMatchObject({
        status: 'setup_required',
        error_code: 'setup_required',
        credits_charged: 0,
      });
      expect(r.body.data.run.nodes[0].error).toContain('VENDOR_KEY');
      await end(a, credentialFlow);
      expect((await ledger.balance(a.wallet)).balance).toBe(5);
    });

    it('a tool node naming a product missing from the catalog fails with product_not_found; nothing is charged', async () => {
      const a = await agent();
      await ledger.grant({ wallet: a.wallet, credits: 5, creditType: 'admin_grant' });
      await start(a, toolFlow);
      const r = await until(
        () => fetchS(a, toolFlow),
        (x) => !['pending', 'running'].includes(x.body.data?.run.status),
      );
      expect(r.body.data.run).toMatchObject({ status: 'failed', error_code: 'product_not_found', credits_charged: 0 });
      await end(a, toolFlow);
      expect((await ledger.balance(a.wallet)).balance).toBe(5);
    });
  });
});
