import { sha256Hex } from '../../shared/platform/ids/index';
import { consoleFetch, consoleWorkspace, formTokenOf, insertRuns, Jar, signIn } from '../support/console';
import { startTestStack, type TestStack } from '../support/stack';
import { addWorkflow } from '../support/webhook-runs';

/** A workflow with a branch: a → condition → yes | no, both → end. */
const branching = (name: string) => ({
  name,
  description: 'branches',
  nodes: [
    { id: 'a', type: 'template', template: '{{prompt}}' },
    { id: 'check', type: 'condition', input: '{{nodes.a.output}}', operator: 'contains', value: 'yes' },
    { id: 'yes', type: 'template', template: 'Y' },
    { id: 'no', type: 'template', template: 'N' },
  ],
  edges: [
    { from: 'a', to: 'check' },
    { from: 'check', to: 'yes', when: true },
    { from: 'check', to: 'no', when: false },
  ],
});

// Room for every test's sign-ins; the last test uses up the rest.
const SIGN_IN_LIMIT = 24;
// The limiter counts per fixed window: one window for the whole file, so no run of attempts is
// split across two windows (each under the limit) however slow the machine is.
const WINDOW_SECONDS = 3600;

/** The console over HTTP: sign-in and its cookie, CSRF, scoping to the workspace, paging, bounds. */
describe('operator console: sessions, forms and scoping over real HTTP and a real store', () => {
  let stack: TestStack;
  let a: Awaited<ReturnType<typeof consoleWorkspace>>;
  let b: Awaited<ReturnType<typeof consoleWorkspace>>;
  let aRuns: string[];
  let bRuns: string[];
  const url = (p: string) => `${stack.server.apiUrl}${p}`;

  beforeAll(async () => {
    // Close to a window's end, start in the next one.
    const left = WINDOW_SECONDS * 1000 - (Date.now() % (WINDOW_SECONDS * 1000));
    if (left < 150_000) await new Promise((r) => setTimeout(r, left + 1000));
    stack = await startTestStack({
      env: { AUTH_SESSION_LIMIT_PER_CLIENT: String(SIGN_IN_LIMIT), AUTH_RATE_WINDOW_SECONDS: String(WINDOW_SECONDS) },
    });
    a = await consoleWorkspace(stack.db, 'Workspace A');
    b = await consoleWorkspace(stack.db, 'Workspace B');
    aRuns = await insertRuns(stack.db, a, 7);
    bRuns = await insertRuns(stack.db, b, 3);
  }, 400_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('sends a page asked for without a session to the sign-in form, which sets only a SameSite=Strict HttpOnly form cookie', async () => {
    const jar = new Jar();
    const res = await consoleFetch(jar, url('/console/runs'));
    expect([res.status, res.location]).toEqual([303, '/console/sign-in']);
    const form = await consoleFetch(jar, url('/console/sign-in'));
    expect(form.status).toBe(200);
    expect(form.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(form.headers.get('content-security-policy')).not.toMatch(/script-src/);
    expect(form.headers.get('x-frame-options')).toBe('DENY');
    expect(form.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^console_sign_in=.+; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=3600$/),
    ]);
    expect(form.text).not.toMatch(/<script/i);
  });

  it('signs in with a live wak_ key: an HttpOnly SameSite=Strict session cookie; the key is kept nowhere, the session under its hash', async () => {
    const jar = new Jar();
    const form = await consoleFetch(jar, url('/console/sign-in'));
    const res = await consoleFetch(jar, url('/console/sign-in'), {
      form: { _form: formTokenOf(form.text), api_key: a.apiKey },
    });
    expect([res.status, res.location]).toEqual([303, '/console']);
    const session = res.headers.getSetCookie().find((c) => c.startsWith('console_session='))!;
    expect(session).toMatch(
      /^console_session=csn_[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=28800$/,
    );
    const value = jar.cookies.get('console_session')!;
    const stored = await stack.db.models.consoleSessions.find({ workspace_id: a.workspaceId }).lean().exec();
    expect(stored.map((d) => d._id)).toContain(sha256Hex(value));
    expect(JSON.stringify(stored)).not.toContain(a.apiKey);
    expect(JSON.stringify(stored)).not.toContain(value);
    const page = await consoleFetch(jar, url('/console'));
    expect(page.status).toBe(200);
    expect(page.text).toContain('Workspace A');
    expect(page.text).not.toContain(a.apiKey);
    expect(page.text).not.toContain(value);
    expect(page.text).toContain('id="spend-chart"');
  });

  it('refuses a wrong key, a budget key in its place and a sign-in post without the form cookie, setting no session', async () => {
    for (const key of ['wak_' + 'x'.repeat(43), 'nonsense', 'bk_' + 'y'.repeat(43)]) {
      const jar = new Jar();
      const form = await consoleFetch(jar, url('/console/sign-in'));
      const res = await consoleFetch(jar, url('/console/sign-in'), {
        form: { _form: formTokenOf(form.text), api_key: key },
      });
      expect(res.status).toBe(401);
      expect(res.text).toContain('not a live workspace API key');
      expect(jar.cookies.has('console_session')).toBe(false);
    }
    // A cross-site post carries no SameSite=Strict cookie: without the form cookie it is refused.
    const forged = await consoleFetch(new Jar(), url('/console/sign-in'), {
      form: { _form: 'guess', api_key: a.apiKey },
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.getSetCookie().some((c) => c.startsWith('console_session='))).toBe(false);
  });

  it("lists only the workspace's runs, filters them by status, group and workflow, and pages them with a cursor", async () => {
    const jar = new Jar();
    await signIn(jar, stack.server.apiUrl, a.apiKey);
    const ids = (html: string) => [...html.matchAll(/data-run="(run_[0-9a-f]{24})"/g)].map((m) => m[1]);
    const all = await consoleFetch(jar, url('/console/runs'));
    expect(all.status).toBe(200);
    expect(ids(all.text)).toEqual([...aRuns].reverse());
    for (const r of bRuns) expect(all.text).not.toContain(r);

    const failed = await consoleFetch(jar, url('/console/runs?status=failed'));
    expect(ids(failed.text)).toEqual([aRuns[5], aRuns[3], aRuns[1]]);
    const none = await consoleFetch(jar, url(`/console/runs?group=${b.groupId}`));
    expect(ids(none.text)).toEqual([]);
    const byWf = await consoleFetch(jar, url('/console/runs?workflow=wf_other'));
    expect(ids(byWf.text)).toEqual([]);

    const seen: string[] = [];
    let next: string | null = '/console/runs?limit=3';
    while (next) {
      const page = await consoleFetch(jar, url(next.replace(/&amp;/g, '&')));
      seen.push(...ids(page.text));
      next = /id="next-page" href="([^"]+)"/.exec(page.text)?.[1] ?? null;
    }
    expect(seen).toEqual([...aRuns].reverse());

    const bad = await consoleFetch(jar, url('/console/runs?status=exploded&limit=100000'));
    expect(bad.status).toBe(422);
    expect(bad.text).toMatch(/status/);
    const method = await consoleFetch(jar, url('/console/runs'), { method: 'PUT' });
    expect(method.status).toBe(405);
  });

  it("answers 404 for another workspace's run, group, token and approval, and changes nothing of theirs", async () => {
    const jar = new Jar();
    const form = await signIn(jar, stack.server.apiUrl, a.apiKey);
    expect((await consoleFetch(jar, url(`/console/runs/${bRuns[0]}`))).status).toBe(404);
    expect((await consoleFetch(jar, url(`/console/runs/${aRuns[0]}`))).status).toBe(200);

    const bToken = await b.repo.issueGroupToken(b.groupId, { label: 'b' });
    const revoke = await consoleFetch(jar, url(`/console/tokens/${bToken.tokenId}/revoke`), { form: { _form: form } });
    expect(revoke.status).toBe(404);
    expect(await b.repo.resolveGroupToken(bToken.token)).not.toBeNull();

    const mint = await consoleFetch(jar, url(`/console/groups/${b.groupId}/tokens`), {
      form: { _form: form, label: 'x' },
    });
    expect(mint.status).toBe(404);
    const rotate = await consoleFetch(jar, url(`/console/groups/${b.groupId}/signing-keys/rotate`), {
      form: { _form: form, scheme: 'v1a' },
    });
    expect(rotate.status).toBe(404);
    const replay = await consoleFetch(jar, url(`/console/runs/${bRuns[0]}/replay`), { form: { _form: form } });
    expect(replay.status).toBe(404);

    const approval = await b.repo.openApproval({
      kind: 'add_workflow',
      workspaceId: b.workspaceId,
      budgetId: b.budgetId,
      workflowId: 'wf_b_only',
      reason: 'test',
    });
    const approve = await consoleFetch(jar, url(`/console/approvals/${approval._id}/approve`), {
      form: { _form: form },
    });
    expect(approve.status).toBe(404);
    expect((await b.repo.getApproval(approval._id))!.status).toBe('open');
    const approvals = await consoleFetch(jar, url('/console/approvals'));
    expect(approvals.text).not.toContain(approval._id);
  });

  it('refuses a form post without the session form token (CSRF) and takes it with the token', async () => {
    const jar = new Jar();
    const form = await signIn(jar, stack.server.apiUrl, a.apiKey);
    const t = await a.repo.issueGroupToken(a.groupId, { label: 'csrf' });
    for (const body of [{}, { _form: 'forged' }, { _form: `${form}x` }] as Array<Record<string, string>>) {
      const res = await consoleFetch(jar, url(`/console/tokens/${t.tokenId}/revoke`), { form: body });
      expect(res.status).toBe(403);
      expect(res.text).toContain('not sent from this console session');
    }
    expect(await a.repo.resolveGroupToken(t.token)).not.toBeNull();
    // Another session's token is not this one's.
    const other = new Jar();
    const otherForm = await signIn(other, stack.server.apiUrl, a.apiKey);
    expect(
      (await consoleFetch(jar, url(`/console/tokens/${t.tokenId}/revoke`), { form: { _form: otherForm } })).status,
    ).toBe(403);
    const ok = await consoleFetch(jar, url(`/console/tokens/${t.tokenId}/revoke`), { form: { _form: form } });
    expect([ok.status, ok.location]).toEqual([303, '/console/budgets']);
    expect(await a.repo.resolveGroupToken(t.token)).toBeNull();
  });

  it('mints a token shown once, then lists it by id only', async () => {
    const jar = new Jar();
    const form = await signIn(jar, stack.server.apiUrl, a.apiKey);
    const res = await consoleFetch(jar, url(`/console/groups/${a.groupId}/tokens`), {
      form: { _form: form, label: 'minted' },
    });
    expect(res.status).toBe(200);
    const token = /class="secret-value" data-name="agent token">(agt_[A-Za-z0-9_-]{43})</.exec(res.text)![1]!;
    expect((await a.repo.resolveGroupToken(token))!.group._id).toBe(a.groupId);
    const later = await consoleFetch(jar, url('/console/budgets'));
    expect(later.text).not.toContain(token);
    expect(later.text).toContain('minted');
  });

  it('signs out (the old cookie opens nothing) and ends sessions whose API key is revoked', async () => {
    const jar = new Jar();
    const form = await signIn(jar, stack.server.apiUrl, a.apiKey);
    const old = jar.header();
    const out = await consoleFetch(jar, url('/console/sign-out'), { form: { _form: form } });
    expect([out.status, out.location]).toEqual([303, '/console/sign-in']);
    expect(out.headers.getSetCookie()).toEqual([expect.stringMatching(/^console_session=; .*Max-Age=0/)]);
    const replayed = await fetch(url('/console'), { redirect: 'manual', headers: { cookie: old } });
    expect(replayed.status).toBe(303);

    const c = await consoleWorkspace(stack.db, 'Workspace C');
    const cj = new Jar();
    await signIn(cj, stack.server.apiUrl, c.apiKey);
    expect((await consoleFetch(cj, url('/console'))).status).toBe(200);
    await c.repo.revokeApiKey(c.apiKeyId);
    expect((await consoleFetch(cj, url('/console'))).status).toBe(303);
    const action = await consoleFetch(cj, url('/console/sign-out'), { form: { _form: 'x' } });
    expect(action.status).toBe(401);
  });

  it("lists the workspace's workflows, draws one's graph and publishes a version through the one publish rule", async () => {
    const mine = await addWorkflow(stack.db, a, branching('branching'));
    const theirs = await addWorkflow(stack.db, b, branching('theirs'));
    const jar = new Jar();
    const form = await signIn(jar, stack.server.apiUrl, a.apiKey);

    const list = await consoleFetch(jar, url('/console/workflows'));
    expect(list.status).toBe(200);
    expect(list.text).toContain(`data-workflow="${mine}"`);
    expect(list.text).not.toContain(theirs);

    const page = await consoleFetch(jar, url(`/console/workflows/${mine}`));
    expect(page.status).toBe(200);
    const nodes = [...page.text.matchAll(/<g class="gnode k-(\w+)" data-node="(\w+)" data-layer="(\d+)"/g)].map((m) => [
      m[2],
      m[1],
      Number(m[3]),
    ]);
    expect(nodes).toEqual([
      ['a', 'template', 0],
      ['check', 'condition', 1],
      ['yes', 'template', 2],
      ['no', 'template', 2],
    ]);
    expect(page.text.match(/class="edge"/g)).toHaveLength(3);
    expect(page.text).toContain('Not published yet');
    expect(page.text).toMatch(/name="version" value="1\.0\.0"/);

    const published = await consoleFetch(jar, url(`/console/workflows/${mine}/publish`), {
      form: { _form: form, version: '1.0.0' },
    });
    expect([published.status, published.location]).toEqual([
      303,
      `/console/workflows/${mine}?version=1.0.0&done=published`,
    ]);
    const after = await consoleFetch(jar, url(published.location!));
    expect(after.text).toContain('data-version="1.0.0"');
    expect(after.text).toContain('Graph of version 1.0.0');
    expect(after.text).toMatch(/name="version" value="1\.0\.1"/);
    const stored = await stack.db.models.workflowVersions.find({ workflow_id: mine }).lean().exec();
    expect(stored.map((v) => v.version)).toEqual(['1.0.0']);

    // The same rule as the admin CLI's publish: not newer is 409, a malformed version 422, an unknown one 404.
    const again = await consoleFetch(jar, url(`/console/workflows/${mine}/publish`), {
      form: { _form: form, version: '1.0.0' },
    });
    expect(again.status).toBe(409);
    expect(again.text).toContain('is not newer than');
    const malformed = await consoleFetch(jar, url(`/console/workflows/${mine}/publish`), {
      form: { _form: form, version: 'v2' },
    });
    expect(malformed.status).toBe(422);
    expect((await consoleFetch(jar, url(`/console/workflows/${mine}?version=9.9.9`))).status).toBe(404);
  });

  it("refuses another workspace's workflow (page and publish) and a publish without the form token", async () => {
    const theirs = await addWorkflow(stack.db, b, branching('theirs-2'));
    const mine = await addWorkflow(stack.db, a, branching('mine-2'));
    const jar = new Jar();
    const form = await signIn(jar, stack.server.apiUrl, a.apiKey);
    const page = await consoleFetch(jar, url(`/console/workflows/${theirs}`));
    expect(page.status).toBe(404);
    expect(page.text).not.toContain('theirs-2');
    const publish = await consoleFetch(jar, url(`/console/workflows/${theirs}/publish`), {
      form: { _form: form, version: '1.0.0' },
    });
    expect(publish.status).toBe(404);
    const forged = await consoleFetch(jar, url(`/console/workflows/${mine}/publish`), {
      form: { _form: 'forged', version: '1.0.0' },
    });
    expect(forged.status).toBe(403);
    expect(await stack.db.models.workflowVersions.countDocuments({ workflow_id: { $in: [theirs, mine] } })).toBe(0);
  });

  it("switches a budget's catalog tools for its groups, only in its own workspace and only with the form token", async () => {
    const jar = new Jar();
    const form = await signIn(jar, stack.server.apiUrl, a.apiKey);
    const token = await a.repo.issueGroupToken(a.groupId, { label: 'catalog' });
    expect((await a.repo.resolveGroupToken(token.token))!.budget.catalog_tools).toBe(false);
    const page = await consoleFetch(jar, url('/console/budgets'));
    expect(page.text).toMatch(
      new RegExp(
        `catalog-tools"><input type="hidden" name="_form" value="[^"]+"><input type="hidden" name="catalog_tools" value="on">`,
      ),
    );

    const on = await consoleFetch(jar, url(`/console/budgets/${a.budgetId}/catalog-tools`), {
      form: { _form: form, catalog_tools: 'on' },
    });
    expect([on.status, on.location]).toEqual([303, `/console/budgets#${a.budgetId}`]);
    // What the group's MCP calls check: the budget its token resolves to.
    expect((await a.repo.resolveGroupToken(token.token))!.budget.catalog_tools).toBe(true);
    expect((await consoleFetch(jar, url('/console/budgets'))).text).toContain('name="catalog_tools" value="off"');
    await consoleFetch(jar, url(`/console/budgets/${a.budgetId}/catalog-tools`), {
      form: { _form: form, catalog_tools: 'off' },
    });
    expect((await a.repo.getBudget(a.budgetId))!.catalog_tools).toBe(false);

    const theirs = await consoleFetch(jar, url(`/console/budgets/${b.budgetId}/catalog-tools`), {
      form: { _form: form, catalog_tools: 'on' },
    });
    expect(theirs.status).toBe(404);
    expect((await b.repo.getBudget(b.budgetId))!.catalog_tools).toBe(false);
    const forged = await consoleFetch(jar, url(`/console/budgets/${a.budgetId}/catalog-tools`), {
      form: { _form: 'forged', catalog_tools: 'on' },
    });
    expect(forged.status).toBe(403);
    const bad = await consoleFetch(jar, url(`/console/budgets/${a.budgetId}/catalog-tools`), {
      form: { _form: form, catalog_tools: 'maybe' },
    });
    expect(bad.status).toBe(422);
    expect((await a.repo.getBudget(a.budgetId))!.catalog_tools).toBe(false);
  });

  it("shows a run's nodes in order with their timings, charges and output previews (escaped, cut marked)", async () => {
    const [runId] = await insertRuns(stack.db, a, 1, { end: new Date(Date.now() - 7_200_000) });
    await stack.db.models.webhookRuns.updateOne(
      { _id: runId },
      {
        $set: {
          'run_metadata.nodes': [
            {
              id: 'fetch',
              type: 'tool',
              status: 'completed',
              credits_charged: 3,
              transaction_id: 'tx_1',
              started_at: '2026-01-01T00:00:00.000Z',
              ended_at: '2026-01-01T00:00:01.250Z',
              output: '<b>not markup</b>',
              output_cut: true,
            },
            { id: 'later', type: 'template', status: 'completed', output_cut: true },
            { id: 'never', type: 'template', status: 'skipped' },
          ],
        },
      },
    );
    const jar = new Jar();
    await signIn(jar, stack.server.apiUrl, a.apiKey);
    const res = await consoleFetch(jar, url(`/console/runs/${runId}`));
    expect(res.status).toBe(200);
    const rows = [...res.text.matchAll(/<tr data-node="(\w+)">(.*?)<\/tr>/gs)].map((m) => [m[1], m[2]!]);
    expect(rows.map((r) => r[0])).toEqual(['fetch', 'later', 'never']);
    const fetchRow = rows[0]![1];
    expect(fetchRow).toContain('2026-01-01T00:00:00Z');
    expect(fetchRow).toContain('ended 2026-01-01T00:00:01.250Z');
    expect(fetchRow).toContain('<td class="node-took">1250 ms</td>');
    expect(fetchRow).toContain('&lt;b&gt;not markup&lt;/b&gt;');
    expect(fetchRow).not.toContain('<b>not markup');
    expect(fetchRow).toContain('class="cut">cut<');
    expect(rows[1]![1]).toContain('left out');
    expect(rows[2]![1]).toContain('<td class="node-took">—</td>');
    expect(res.text).toContain('<dd id="run-charged">3 credits</dd>');
  });

  // Last: it uses up this client's sign-ins.
  it('limits sign-ins per client with the shared limiter (429 with Retry-After)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < SIGN_IN_LIMIT + 2; i++) {
      const jar = new Jar();
      const form = await consoleFetch(jar, url('/console/sign-in'));
      const res = await consoleFetch(jar, url('/console/sign-in'), {
        form: { _form: formTokenOf(form.text), api_key: 'wak_wrong' },
      });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(SIGN_IN_LIMIT);
  });
});
