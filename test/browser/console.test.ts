import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../scripts/services/chromium';
import { callbackReplayResult } from '../../temporal/webhook-callbacks/client';
import { consoleWorkspace, insertRuns } from '../support/console';
import { type HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { startTestStack, type TestStack } from '../support/stack';
import { addWorkflow, templateWorkflow, trigger, waitForRun } from '../support/webhook-runs';

/**
 * The console in headless Chromium against the real API, store, Temporal workers and an HTTPS
 * callback receiver: a person signs in with a workspace API key, finds a run by filter, opens it,
 * replays its callback, rotates a signing key, mints and revokes a token and approves a request;
 * another workspace's run and a cross-site form post are refused.
 */
describe('operator console in a real browser', () => {
  let stack: TestStack;
  let receiver: HttpsReceiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let a: Awaited<ReturnType<typeof consoleWorkspace>>;
  let b: Awaited<ReturnType<typeof consoleWorkspace>>;
  let runId: string;
  let otherRun: string;
  const url = (p: string) => `${stack.server.apiUrl}${p}`;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    stack = await startTestStack({
      workers: true,
      queues: ['runs', 'node-template', 'callbacks'],
      env: {
        CALLBACK_ALLOW_LOOPBACK: 'true',
        CALLBACK_CA_FILE: receiver.caFile,
        CALLBACK_INITIAL_INTERVAL_MS: '200',
        CALLBACK_JITTER: '0',
      },
    });
    a = await consoleWorkspace(stack.db, 'Acme agents');
    b = await consoleWorkspace(stack.db, 'Other workspace');
    // Runs of the store only (older), then one real run with a delivered callback.
    await insertRuns(stack.db, a, 6, { end: new Date(Date.now() - 3_600_000) });
    otherRun = (await insertRuns(stack.db, b, 1))[0]!;
    const wf = await addWorkflow(stack.db, a, templateWorkflow('console-greeter'));
    const res = await trigger(stack.server.mainUrl, a.token, wf, {
      prompt: 'console',
      callback_url: `${receiver.origin}/hooks/console`,
    });
    expect(res.status).toBe(200);
    runId = res.body.data.run.run_id;
    await waitForRun(
      stack.server.mainUrl,
      runId,
      a.token,
      60_000,
      (r) => !['queued', 'running'].includes(r.status) && r.callback_status !== 'pending',
    );
    await stack.temporal.client.workflow.getHandle(runId).result();

    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    context.setDefaultTimeout(60_000);
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await receiver?.close();
  });

  it('signs in with the API key: the key is in no page, storage or script-readable cookie', async () => {
    await page.goto(url('/console'));
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await page.locator('#api_key').fill(a.apiKey);
    await page.locator('#sign-in button[type=submit]').click();
    await page.locator('#credits-left').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console');
    expect(await page.locator('#workspace').textContent()).toContain('Acme agents');
    expect(await page.locator('#spend-chart').count()).toBe(1);
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await page.evaluate('JSON.stringify(localStorage) + JSON.stringify(sessionStorage)')).toBe('{}{}');
    expect(await page.content()).not.toContain(a.apiKey);
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'console_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  });

  it('finds the run by filter, opens it, shows its nodes and delivery, and replays the callback', async () => {
    await page.goto(url('/console/runs'));
    expect(await page.locator('#runs tbody tr[data-run]').count()).toBe(7);
    await page.locator('#f-status').selectOption('completed');
    await page
      .locator('#f-workflow')
      .fill((await stack.db.models.webhookRuns.findById(runId).lean().exec())!.workflow_id);
    await page.locator('#apply').click();
    await page.waitForURL(/status=completed/);
    expect(await page.locator('#runs tbody tr[data-run]').count()).toBe(1);
    await page.locator(`#runs a[href="/console/runs/${runId}"]`).click();
    await page.locator('#run-facts').waitFor();
    expect(await page.locator('#run-status').textContent()).toContain('completed');
    const greet = page.locator('#nodes tr[data-node="greet"]');
    expect(await greet.count()).toBe(1);
    // The node's timings (its workflow's task times) and its output preview.
    expect(await greet.locator('.node-started').textContent()).toMatch(/^\d{4}-\d\d-\d\dT.*ended \d{4}-/);
    expect(await greet.locator('.node-took').textContent()).toMatch(/^\d+ ms$/);
    expect(await greet.locator('pre.node-output').textContent()).toBe('Hello, console!');
    expect(await page.locator('#output').textContent()).toBe('Hello, console!');
    expect(await page.locator('#temporal-link').getAttribute('href')).toBe(
      `http://localhost:8233/namespaces/default/workflows/${runId}`,
    );
    expect(await page.locator('#deliveries tr[data-kind="delivery"]').count()).toBeGreaterThanOrEqual(1);

    const before = receiver.received.filter((r) => r.body.includes(runId)).length;
    await page.locator('#replay').click();
    await page.locator('#notice').waitFor();
    const replay = await stack.db.models.callbackReplays.findOne({ run_id: runId }).lean().exec();
    expect(replay!.requested_by).toBe(a.apiKeyId);
    await callbackReplayResult(stack.temporal, replay!._id);
    await page.reload();
    expect(await page.locator('#deliveries tr[data-kind="replay"]').count()).toBe(1);
    expect(receiver.received.filter((r) => r.body.includes(runId)).length).toBe(before + 1);
  });

  it('rotates a signing key to ed25519 and shows the new public key', async () => {
    await page.goto(url('/console/callbacks'));
    const group = page.locator(`section[data-group="${a.groupId}"]`);
    const versions = await group.locator('tr[data-version]').count();
    await group.locator('select[name=scheme]').selectOption('v1a');
    await group.locator('button.rotate').click();
    const shown = await page.locator('#shown-once .secret-value').textContent();
    expect(shown).toMatch(/^whpk_/);
    expect(await page.locator(`section[data-group="${a.groupId}"] tr[data-version]`).count()).toBe(versions + 1);
    const keys = await stack.db.models.signingKeys.find({ group_id: a.groupId }).lean().exec();
    expect(keys.some((k) => (k as { scheme?: string }).scheme === 'v1a')).toBe(true);
  });

  it('mints a token (shown once, and it works) and revokes it', async () => {
    await page.goto(url('/console/budgets'));
    const group = page.locator(`div.group[data-group="${a.groupId}"]`);
    await group.locator('input[name=label]').fill('browser');
    await group.locator('button.mint').click();
    const token = (await page.locator('#shown-once .secret-value').textContent())!;
    expect(token).toMatch(/^agt_/);
    expect(await a.repo.resolveGroupToken(token)).not.toBeNull();
    const tokenId = (await a.repo.resolveGroupToken(token))!.tokenId;
    await page.goto(url('/console/budgets'));
    expect(await page.content()).not.toContain(token);
    await page.locator(`tr[data-token="${tokenId}"] button.revoke`).click();
    await page.locator(`tr[data-token="${tokenId}"]`, { hasText: 'revoked' }).waitFor();
    expect(await a.repo.resolveGroupToken(token)).toBeNull();
  });

  it("turns catalog tools on and off for a budget's groups", async () => {
    await page.goto(url('/console/budgets'));
    const card = page.locator(`section.budget[id="${a.budgetId}"]`);
    expect(await card.locator('.catalog-state').textContent()).toBe('off');
    await card.locator('button.catalog-switch').click();
    await page.locator(`section.budget[id="${a.budgetId}"] .catalog-state`, { hasText: 'on' }).waitFor();
    expect((await a.repo.getBudget(a.budgetId))!.catalog_tools).toBe(true);
    await page.locator(`section.budget[id="${a.budgetId}"] button.catalog-switch`).click();
    await page.locator(`section.budget[id="${a.budgetId}"] .catalog-state`, { hasText: 'off' }).waitFor();
    expect((await a.repo.getBudget(a.budgetId))!.catalog_tools).toBe(false);
  });

  it('approves an open request', async () => {
    const approval = await a.repo.openApproval({
      kind: 'add_workflow',
      workspaceId: a.workspaceId,
      budgetId: a.budgetId,
      workflowId: 'wf_needs_approval',
      reason: 'a group asked for it',
    });
    await page.goto(url('/console/approvals'));
    await page.locator(`tr[data-approval="${approval._id}"] button.approve`).click();
    await page.locator('#notice').waitFor();
    expect(await page.locator(`tr[data-approval="${approval._id}"]`).count()).toBe(0);
    expect((await a.repo.getApproval(approval._id))!.status).toBe('approved');
    expect(await a.repo.isWorkflowOnBudget(a.budgetId, 'wf_needs_approval')).toBe(true);
  });

  it("opens a workflow, sees its graph drawn, publishes a version, and cannot open another workspace's", async () => {
    const wf = await addWorkflow(stack.db, a, {
      name: 'console-branching',
      description: 'branches',
      nodes: [
        { id: 'first', type: 'template', template: '{{prompt}}' },
        { id: 'check', type: 'condition', input: '{{nodes.first.output}}', operator: 'contains', value: 'y' },
        { id: 'yes', type: 'template', template: 'Y' },
        { id: 'no', type: 'template', template: 'N' },
      ],
      edges: [
        { from: 'first', to: 'check' },
        { from: 'check', to: 'yes', when: true },
        { from: 'check', to: 'no', when: false },
      ],
    });
    const theirs = await addWorkflow(stack.db, b, templateWorkflow('their-greeter'));
    await page.goto(url('/console/workflows'));
    expect(await page.locator(`#workflows tr[data-workflow="${theirs}"]`).count()).toBe(0);
    await page.locator(`#workflows a[href="/console/workflows/${wf}"]`).click();
    await page.locator('#graph').waitFor();
    expect(await page.locator('#graph g.gnode').count()).toBe(4);
    expect(await page.locator('#graph line.edge').count()).toBe(3);
    // Drawn in layers: the condition's branches side by side below it.
    const box = async (id: string) => (await page.locator(`#graph g[data-node="${id}"] rect`).boundingBox())!;
    const [check, yes, no] = [await box('check'), await box('yes'), await box('no')];
    expect(yes.y).toBeGreaterThan(check.y);
    expect(yes.y).toBe(no.y);
    expect(yes.x).not.toBe(no.x);

    await page.locator('#publish input[name=version]').fill('2.0.0');
    await page.locator('#publish button[type=submit]').click();
    await page.locator('#notice').waitFor();
    expect(await page.locator('#versions tr[data-version="2.0.0"]').count()).toBe(1);
    expect(
      (await stack.db.models.workflowVersions.find({ workflow_id: wf }).lean().exec()).map((v) => v.version),
    ).toEqual(['2.0.0']);
    const res = await page.goto(url(`/console/workflows/${theirs}`));
    expect(res!.status()).toBe(404);
  });

  it("refuses another workspace's run and a form posted from another site", async () => {
    const res = await page.goto(url(`/console/runs/${otherRun}`));
    expect(res!.status()).toBe(404);
    expect(await page.content()).not.toContain('Other workspace');

    const victim = await a.repo.issueGroupToken(a.groupId, { label: 'victim' });
    const form = await stack.db.models.consoleSessions.findOne({ workspace_id: a.workspaceId }).lean().exec();
    // Even with the right form token, a post from another site carries no SameSite=Strict cookie.
    const attacker = await context.newPage();
    await attacker.setContent(
      `<form method="post" action="${url(`/console/tokens/${victim.tokenId}/revoke`)}"><input name="_form" value="${form!.form_token}"><button>go</button></form>`,
    );
    const [answer] = await Promise.all([attacker.waitForNavigation(), attacker.locator('button').click()]);
    expect(answer!.status()).toBe(401);
    await attacker.close();
    expect(await a.repo.resolveGroupToken(victim.token)).not.toBeNull();
  });

  it('signs out: the session cookie no longer opens a page', async () => {
    await page.goto(url('/console'));
    await page.locator('#sign-out').click();
    await page.waitForURL(/\/console\/sign-in$/);
    await page.goto(url('/console/runs'));
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
  });
});
