import { freePort } from '../../scripts/services/process';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { AccessTokenService } from '../../shared/identity/access-tokens';
import { ToolRepository } from '../../shared/tools/repository';
import { runsFinished, runsStarted } from '../../shared/webhook-runs/metrics';
import { RunRepository } from '../../shared/webhook-runs/repository';
import { http } from '../support/http';
import { sample } from '../support/prometheus';
import { storeFinishedRun } from '../support/runs-store';
import { startTestStack, TestStack } from '../support/stack';
import { startScriptedVendor } from '../support/vendor';

const TOKEN = 'metrics-operator-token-0123456789';

describe('GET /metrics on the bearer host', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  const api = (p: string) => `${stack.server.apiUrl}${p}`;
  const scrape = async () => {
    const res = await http('GET', api('/metrics'), { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    return res.text;
  };

  beforeAll(async () => {
    stack = await startTestStack({ env: { METRICS_TOKEN: TOKEN } });
    vendor = await startScriptedVendor(() => ({ status: 200, body: { result: { ok: true } } }));
  });
  afterAll(async () => {
    await vendor.stop();
    await stack.stop();
  });

  it('wants METRICS_TOKEN when it is set, and is not listed on the main host', async () => {
    expect((await http('GET', api('/metrics'))).status).toBe(401);
    const wrong = await http('GET', api('/metrics'), {
      headers: { authorization: 'Bearer not-the-metrics-token-at-all' },
    });
    expect(wrong).toMatchObject({ status: 401, body: { error_code: 'metrics_token_invalid' } });
    expect((await http('GET', `${stack.server.mainUrl}/metrics`)).status).toBe(404);
  });

  it('answers text/plain with request counts and latency by route pattern and status', async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++) expect((await http('GET', api('/health'))).status).toBe(200);
    // An error leaving a mounted router: labelled with the full pattern, never the raw URL.
    const run = await http('GET', `${stack.server.mainUrl}/api/agent-webhooks/runs/run_0123456789abcdef`);
    expect(run.status).toBeGreaterThanOrEqual(400);
    await http('GET', api('/no/such/route'));

    const res = await http('GET', api('/metrics'), { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = res.text;
    expect(text).toMatch(
      /http_request_duration_seconds_bucket\{le="[\d.]+",method="GET",route="\/health",status="200"\} \d+/,
    );
    const health = { method: 'GET', route: '/health', status: '200' };
    expect(
      sample(text, 'http_request_duration_seconds_count', health) -
        sample(before, 'http_request_duration_seconds_count', health),
    ).toBe(3);
    expect(
      sample(text, 'http_request_duration_seconds_count', {
        route: '/api/agent-webhooks/runs/:runId',
        status: String(run.status),
      }),
    ).toBe(1);
    expect(
      sample(text, 'http_request_duration_seconds_count', { route: 'unmatched', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('run_0123456789abcdef');
    expect(text).not.toContain('/no/such/route');
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('counts credits held and captured by a paid tool call', async () => {
    const repo = new ToolRepository(stack.db.models);
    const p = await repo.createProduct({ slug: 'echo', name: 'echo', description: 'echoes' });
    await repo.addAction('echo', {
      slug: 'say',
      credits: 4,
      parameters_schema: { type: 'object' },
      runner: { kind: 'http', url: `${vendor.url}/say`, method: 'POST', timeout_ms: 20_000 },
    });
    const wallet = '0x' + 'c4'.repeat(20);
    const token = await new AccessTokenService(stack.db.models).issue({ wallet, createdBy: 'operator' as never });
    await new LedgerStore(stack.db.models).grant({ wallet, credits: 10, creditType: 'admin_grant' });

    const before = await scrape();
    const res = await http('POST', api('/products/purchase'), {
      body: { product_id: p.id, parameters: { action: 'say' } },
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(res.status).toBe(200);
    const after = await scrape();
    const moved = (name: string, type: string) => sample(after, name, { type }) - sample(before, name, { type });
    expect(moved('credit_ledger_entries_total', 'hold')).toBe(1);
    expect(moved('credit_ledger_entries_total', 'purchase')).toBe(1);
    expect(moved('credit_ledger_credits_total', 'hold')).toBe(4);
    expect(moved('credit_ledger_credits_total', 'purchase')).toBe(4);
    expect(moved('credit_ledger_entries_total', 'release')).toBe(0);
  });

  it('counts a run started and finished once, however often a retried activity repeats the step', async () => {
    const id = await storeFinishedRun(
      stack.db,
      { groupId: 'grp_m', budgetId: 'bud_m', workspaceId: 'ws_m' } as never,
      'https://example.com/cb',
    );
    await stack.db.models.webhookRuns.updateOne({ _id: id }, { $set: { status: 'queued' } });
    const runs = new RunRepository(stack.db.models);
    const started = async () => (await runsStarted.get()).values.reduce((n, v) => n + v.value, 0);
    const finished = async (status: string) =>
      (await runsFinished.get()).values.find((v) => v.labels.status === status)?.value ?? 0;
    const [s0, f0] = [await started(), await finished('failed')];
    await runs.markRunning(id, new Date());
    await runs.markRunning(id, new Date());
    const outcome = {
      status: 'failed' as const,
      response_text: null,
      model: null,
      error_code: 'x',
      error_message: 'x',
      nodes: [],
    };
    await runs.finish(id, outcome, new Date());
    await runs.finish(id, outcome, new Date());
    expect((await started()) - s0).toBe(1);
    expect((await finished('failed')) - f0).toBe(1);
    expect(sample(await scrape(), 'webhook_runs_finished_total', { status: 'failed' })).toBe(await finished('failed'));
  });
});

describe('GET /metrics while the store is down', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({
      env: { MONGODB_URI: `mongodb://127.0.0.1:${await freePort()}` },
      waitForStore: false,
    });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('still answers (open without METRICS_TOKEN) and counts the 503s as store errors', async () => {
    const before = await http('GET', `${stack.server.apiUrl}/metrics`);
    expect(before.status).toBe(200);
    const refused = await http('GET', `${stack.server.apiUrl}/credits/balance`);
    expect(refused).toMatchObject({ status: 503, body: { error_code: 'store_unavailable' } });
    const after = await http('GET', `${stack.server.apiUrl}/metrics`);
    expect(after.status).toBe(200);
    const store = { dependency: 'store' };
    expect(
      sample(after.text, 'dependency_unavailable_total', store) -
        sample(before.text, 'dependency_unavailable_total', store),
    ).toBe(1);
  });
});
