import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { seedDemoCatalog } from '../../scripts/services/demo-vendor/catalog';
import { COMMANDS } from '../../sdk/src/cli/commands';
import { main } from '../../sdk/src/cli/main';
import { ERROR_CATALOG } from '../../shared/composition/error-catalog';
import { ToolRepository } from '../../shared/tools/repository';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { startTestDemoVendor } from '../support/demo-vendor';
import { createJob, goodPost } from '../support/jobs';
import { TestPayer } from '../support/payer';
import { makeSchedule, scheduleAccount } from '../support/schedules';
import { startTestStack, type TestStack } from '../support/stack';
import { addWorkflow, setupGroup, templateWorkflow } from '../support/webhook-runs';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'sdk/bin/agent-commerce.cjs');

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    // stdin stays open (a pipe): `script` ends its session when its input ends.
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the agent-commerce CLI as a child process against the real stack', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startTestDemoVendor>>;
  let env: NodeJS.ProcessEnv;
  const dir = mkdtempSync(path.join(tmpdir(), 'agent-cli-'));
  const keyFile = path.join(dir, 'agent', 'key.json');
  const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    run(process.execPath, [BIN, ...args], { ...env, ...extra });
  /** Runs with --json: exactly one JSON value on stdout. */
  const cliJson = async (args: string[], extra: NodeJS.ProcessEnv = {}) => {
    const out = await cli([...args, '--json'], extra);
    let value: any;
    try {
      value = JSON.parse(out.stdout);
    } catch {
      throw new Error(`not one JSON value (exit ${out.code}): ${out.stdout}\n${out.stderr}`);
    }
    return { ...out, value };
  };

  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    vendor = await startTestDemoVendor();
    await seedDemoCatalog(new ToolRepository(stack.db.models), {
      vendorUrl: vendor.url,
      vendorSecret: vendor.secret,
      secretKey: stack.config.tools.secretsKey,
    });
    env = {
      PATH: process.env.PATH,
      HOME: dir,
      AGENT_COMMERCE_URL: stack.server.mainUrl,
      AGENT_COMMERCE_API_URL: stack.server.apiUrl,
      AGENT_COMMERCE_KEY_FILE: keyFile,
      AGENT_COMMERCE_X402_ASSETS: `eip155:84532:${TestPayer.tokenAddress()}`,
    };
  }, 120_000);
  afterAll(async () => {
    await vendor?.stop();
    await stack?.stop();
  });

  it('answers --help on every command (exit 0, its usage and flags) and a usage error with exit 2', async () => {
    const top = await cli(['--help']);
    expect(top.code).toBe(0);
    for (const c of COMMANDS) expect(top.stdout).toContain(c.words.join(' '));
    for (const c of COMMANDS) {
      const out = new PassThrough();
      let text = '';
      out.on('data', (b: Buffer) => (text += b.toString()));
      const code = await main([...c.words, '--help'], { stdout: out, stderr: out, env: {} });
      expect([c.words.join(' '), code]).toEqual([c.words.join(' '), 0]);
      expect(text).toContain(`usage: agent-commerce ${c.words.join(' ')}`);
      for (const flag of Object.keys(c.options ?? {})) expect(text).toContain(`--${flag}`);
    }
    const wrong = await cliJson(['tools', 'invoke', 'only-one']);
    expect(wrong.code).toBe(2);
    expect(wrong.value.error.code).toBe('sdk_bad_input');
  });

  it('the README tour: identity new, buy-credits, tools search, tools invoke, runs trigger --wait', async () => {
    const identity = await cliJson(['identity', 'new']);
    expect(identity.code).toBe(0);
    expect(identity.value).toEqual({ address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), key_file: keyFile });
    const saved = JSON.parse(readFileSync(keyFile, 'utf8'));
    expect(saved.address).toBe(identity.value.address);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    // The key is never printed unless asked.
    expect(identity.stdout + identity.stderr).not.toContain(saved.private_key.slice(2));
    // A second identity within the minute from this address: the service's 429, printed with its hint.
    const again = await cli(['identity', 'new', '--key-file', path.join(dir, 'second.json')]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('error: rate_limited (HTTP 429)');
    expect(again.stderr).toContain(`hint: ${ERROR_CATALOG.rate_limited.action}`);

    const payer = new TestPayer(saved.private_key);
    await payer.fund(10);
    const bought = await cliJson(['buy-credits', '--credits', '500']);
    expect(bought.code).toBe(0);
    expect(bought.value).toMatchObject({
      success: true,
      data: { credits: 500, balance: 500 },
      x402: { settled: true, payment: { amount_base_units: '5000000' } },
    });
    expect(await payer.balance()).toBe(5_000_000n);
    expect((await cliJson(['balance'])).value).toMatchObject({ balance: 500 });
    // The session nonce is kept beside the key, private, so each command does not open a session.
    expect(statSync(`${keyFile}.session`).mode & 0o777).toBe(0o600);
    const nonce = JSON.parse(readFileSync(`${keyFile}.session`, 'utf8')).session_nonce;

    const found = await cliJson(['tools', 'search', 'links']);
    expect(found.value.tools.map((t: { name: string }) => t.name)).toEqual(['text_tools']);
    const invoked = await cliJson(['tools', 'invoke', 'text-tools', 'stats', '--params', '{"text":"one two three"}']);
    expect(invoked.value).toMatchObject({ success: true, response: { words: 3 } });
    const human = await cli(['balance']);
    expect(human.stdout.trim()).toMatch(/^499 credits \(next expiry /);
    expect(JSON.parse(readFileSync(`${keyFile}.session`, 'utf8')).session_nonce).toBe(nonce);

    const group = await setupGroup(stack.db);
    const workflowId = await addWorkflow(stack.db, group, templateWorkflow());
    const ran = await cliJson(['runs', 'trigger', workflowId, '--input', '{"prompt":"Ada"}', '--wait'], {
      AGENT_COMMERCE_AGENT_TOKEN: group.token,
    });
    expect(ran.code).toBe(0);
    expect(ran.value).toMatchObject({ workflow_id: workflowId, status: 'completed', response_text: 'Hello, Ada!' });
    // Not a terminal: no progress lines.
    expect(ran.stderr).toBe('');
    const got = await cliJson(['runs', 'get', ran.value.run_id], { AGENT_COMMERCE_AGENT_TOKEN: group.token });
    expect(got.value).toMatchObject({ run_id: ran.value.run_id, status: 'completed' });
  });

  it('runs a workflow as an MCP task: mcp run waits for its result, --start answers the task, mcp task and mcp cancel', async () => {
    const group = await setupGroup(stack.db);
    const workflowId = await addWorkflow(stack.db, group, templateWorkflow('cli task greeter'));
    await new WorkflowRepository(stack.db.models).publish(workflowId, '1.0.0');
    const asGroup = { AGENT_COMMERCE_AGENT_TOKEN: group.token };
    const ran = await cliJson(['mcp', 'run', workflowId, '--prompt', 'Task'], asGroup);
    expect(ran.code).toBe(0);
    expect(ran.value).toMatchObject({
      taskId: expect.stringMatching(/^run_/),
      status: 'completed',
      result: { content: [{ type: 'text', text: 'Hello, Task!' }] },
    });
    // The task is the run: the REST resource of the same id says the same.
    const run = await cliJson(['runs', 'get', ran.value.taskId], asGroup);
    expect(run.value).toMatchObject({ status: 'completed', response_text: 'Hello, Task!' });

    const started = await cliJson(
      ['mcp', 'run', workflowId, '--prompt', 'Later', '--start', '--request-id', 'cli-1'],
      asGroup,
    );
    expect(started.value).toMatchObject({ taskId: expect.stringMatching(/^run_/), ttlMs: expect.any(Number) });
    // The same request id answers the same task.
    const again = await cliJson(
      ['mcp', 'run', workflowId, '--prompt', 'Later', '--start', '--request-id', 'cli-1'],
      asGroup,
    );
    expect(again.value.taskId).toBe(started.value.taskId);
    const human = await cli(['mcp', 'task', started.value.taskId], asGroup);
    expect(human.stdout).toMatch(new RegExp(`^${started.value.taskId}  (working|completed)`));
    // Cancelling a task answers its state after; on one already over it changes nothing.
    await cliJson(['mcp', 'run', workflowId, '--prompt', 'Later', '--request-id', 'cli-1'], asGroup);
    const cancelled = await cliJson(['mcp', 'cancel', started.value.taskId], asGroup);
    expect(cancelled.value).toMatchObject({ taskId: started.value.taskId, status: 'completed' });

    const stranger = await setupGroup(stack.db);
    const foreign = await cliJson(['mcp', 'task', started.value.taskId], {
      AGENT_COMMERCE_AGENT_TOKEN: stranger.token,
    });
    expect(foreign.code).toBe(1);
    expect(foreign.value.error.code).toBe('run_not_found');
    const tokenless = await cliJson(['mcp', 'task', started.value.taskId], { AGENT_COMMERCE_AGENT_TOKEN: '' });
    expect([tokenless.code, tokenless.value.error.code]).toEqual([2, 'sdk_bad_input']);
  });

  it('prints code, message and the catalog hint of an error and exits 1 (human on stderr; one JSON value with --json)', async () => {
    const json = await cliJson(['tools', 'invoke', 'no-such-tool', 'x', '--params', '{}']);
    expect(json.code).toBe(1);
    expect(json.value).toEqual({
      error: {
        code: 'product_not_found',
        message: expect.any(String),
        status: 404,
        hint: ERROR_CATALOG.product_not_found.action,
        request_id: expect.any(String),
      },
    });
    const human = await cli(['tools', 'invoke', 'no-such-tool', 'x']);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toContain('error: product_not_found (HTTP 404): ');
    expect(human.stderr).toContain(`hint: ${ERROR_CATALOG.product_not_found.action}`);
    expect(human.stderr).toMatch(/\nrequest: \S+/);
    // After the tour (tests of a file run in order): an existing key file is never overwritten
    // without --force, and the service is not asked.
    const exists = await cliJson(['identity', 'new']);
    expect([exists.code, exists.value.error.code]).toEqual([2, 'sdk_bad_input']);
  });

  it('shows progress lines (status changes, elapsed time) while `runs trigger --wait` runs on a terminal', async () => {
    const group = await setupGroup(stack.db);
    const workflowId = await addWorkflow(stack.db, group, templateWorkflow('tty'));
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const command = [process.execPath, BIN, 'runs', 'trigger', workflowId, '--prompt', 'Tty', '--wait']
      .map(quote)
      .join(' ');
    const tty = await run('script', ['-q', '-e', '-c', command, '/dev/null'], {
      ...env,
      AGENT_COMMERCE_AGENT_TOKEN: group.token,
    });
    expect(tty.code).toBe(0);
    const lines = tty.stdout.split(/\r?\n/);
    const progress = lines.filter((l) => /^\[\s*\d+\.\ds\] run run_\S+ (queued|running|completed)$/.test(l));
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[progress.length - 1]).toMatch(/ completed$/);
    expect(tty.stdout).toContain('response: Hello, Tty!');
  });

  it('drives tokens, jobs, schedules and workflow sessions', async () => {
    // Access tokens of the tour's wallet: issue, use on the bearer host, list, revoke.
    const issued = await cliJson(['tokens', 'issue', '--label', 'cli']);
    expect(issued.value.access_token).toMatch(/^act_/);
    const viaBearer = await cliJson(['balance', '--bearer'], {
      AGENT_COMMERCE_ACCESS_TOKEN: issued.value.access_token,
    });
    expect(viaBearer.value.balance).toBe(499);
    const tokens = await cliJson(['tokens', 'list']);
    expect(tokens.value.map((t: { token_id: string }) => t.token_id)).toContain(issued.value.token_id);
    const revoked = await cliJson(['tokens', 'revoke', issued.value.token_id]);
    expect(revoked.value).toEqual({ token_id: issued.value.token_id, already_revoked: false });

    // Jobs, signed with the key file from the tour.
    const job = await createJob(stack.db.models, { title: 'CLI job' });
    const listed = await cliJson(['jobs', 'list', '--limit', '50']);
    expect(listed.value.jobs.map((j: { job_id: string }) => j.job_id)).toContain(job._id);
    const reserved = await cliJson(['jobs', 'reserve', job._id]);
    expect(reserved.value).toMatchObject({ job_id: job._id, status: 'active' });
    const completed = await cliJson([
      'jobs',
      'complete',
      job._id,
      '--proof',
      'posted',
      '--reservation-id',
      reserved.value.reservation_id,
      '--social-posts',
      JSON.stringify([goodPost()]),
    ]);
    expect([completed.code, completed.value.error]).toEqual([0, undefined]);
    expect(completed.value.reservation_id).toBe(reserved.value.reservation_id);

    // Schedules with the budget's key.
    const account = await scheduleAccount(stack.db, 'cli');
    const schedule = await makeSchedule(stack.db, account, { dueMinutesAgo: 3 });
    const keyEnv = { AGENT_COMMERCE_SCHEDULE_KEY: `${account.apiKey}:${account.budgetKey}` };
    const due = await cliJson(['schedules', 'due'], keyEnv);
    expect(due.value.occurrences.map((o: { schedule_id: string }) => o.schedule_id)).toEqual([schedule._id]);
    const claim = await cliJson(['schedules', 'claim', '--schedule-id', schedule._id], keyEnv);
    const released = await cliJson(
      ['schedules', 'release', schedule._id, '--due-at', claim.value.due_at, '--claim-token', claim.value.claim_token],
      keyEnv,
    );
    expect(released.value.released).toBe(true);
    const again = await cliJson(['schedules', 'claim'], keyEnv);
    const advanced = await cliJson(
      [
        'schedules',
        'advance',
        schedule._id,
        '--due-at',
        again.value.due_at,
        '--claim-token',
        again.value.claim_token,
        '--outcome',
        'success',
      ],
      keyEnv,
    );
    expect(advanced.value).toMatchObject({ already_advanced: false, schedule: { last_outcome: 'success' } });

    // A wallet session of a published workflow.
    const workflow = await new WorkflowRepository(stack.db.models).create({
      name: 'CLI greeter',
      nodes: [{ id: 'g', type: 'template', template: 'Hi {{metadata.instance_id}}' }],
      edges: [],
      status: 'published',
    });
    const started = await cliJson(['sessions', 'start', workflow._id]);
    expect(started.value).toMatchObject({ workflow_id: workflow._id, status: 'active', resumed: false });
    let fetched = await cliJson(['sessions', 'fetch', workflow._id]);
    for (const deadline = Date.now() + 60_000; Date.now() < deadline && fetched.value.run.status !== 'completed';) {
      await new Promise((r) => setTimeout(r, 300));
      fetched = await cliJson(['sessions', 'fetch', workflow._id]);
    }
    expect(fetched.value.run).toMatchObject({ status: 'completed', response_text: 'Hi default' });
    const active = await cliJson(['sessions', 'active']);
    expect(active.value.map((s: { workflow_session_id: string }) => s.workflow_session_id)).toEqual([
      started.value.workflow_session_id,
    ]);
    const ended = await cliJson(['sessions', 'end', workflow._id]);
    expect(ended.value).toMatchObject({ status: 'ended', already_ended: false });
  });

  it('drives jobs workflow create, update and publish: signed or with the reserve token alone, as a table or --json', async () => {
    const job = await createJob(stack.db.models, {
      kind: 'workflow_creation',
      title: 'CLI workflow job',
      reward_credits: 10,
      target_url: null,
      platforms: [],
    });
    const reserved = await cliJson(['jobs', 'reserve', job._id]);
    const token: string = reserved.value.workflow_token;
    expect(token).toEqual(expect.any(String));
    const greet = { id: 'greet', type: 'template', template: 'Hello {{prompt}}' };

    // Signed with the tour's key file; --json prints the workflow.
    const created = await cliJson([
      'jobs',
      'workflow',
      'create',
      job._id,
      '--name',
      'CLI greeter',
      '--nodes',
      JSON.stringify([greet]),
      '--edges',
      '[]',
    ]);
    expect([created.code, created.value.error]).toEqual([0, undefined]);
    expect(created.value).toMatchObject({
      job_id: job._id,
      name: 'CLI greeter',
      status: 'draft',
      latest_version: null,
      nodes: [expect.objectContaining({ id: 'greet' })],
    });
    const workflowId: string = created.value.workflow_id;

    // The flags win over --input.
    const updated = await cliJson([
      'jobs',
      'workflow',
      'update',
      job._id,
      workflowId,
      '--input',
      JSON.stringify({ name: 'from input', description: 'says hello' }),
      '--name',
      'Greeter',
    ]);
    expect([updated.code, updated.value.name, updated.value.description]).toEqual([0, 'Greeter', 'says hello']);
    // The table: one aligned row per field.
    const table = await cli(['jobs', 'workflow', 'update', job._id, workflowId, '--description', 'says hi']);
    expect([table.code, table.stderr]).toEqual([0, '']);
    expect(table.stdout.split('\n').slice(0, 5)).toEqual([
      `workflow  ${workflowId}`,
      `job       ${job._id}`,
      'name      Greeter',
      'status    draft',
      'latest    -',
    ]);
    expect(table.stdout).toMatch(/^nodes +1 nodes, 0 edges$/m);

    // No key file at all: the reserve token authorises the call.
    const noKey = { AGENT_COMMERCE_KEY_FILE: path.join(dir, 'no-such-key.json') };
    const first = await cli(['jobs', 'workflow', 'publish', job._id, workflowId, '--token', token], noKey);
    expect([first.code, first.stderr]).toEqual([0, '']);
    expect(first.stdout).toMatch(/^published +1\.0\.0$/m);
    expect(first.stdout).toMatch(/^status +published$/m);
    const minor = await cliJson(
      ['jobs', 'workflow', 'publish', job._id, workflowId, '--token', token, '--bump', 'minor'],
      noKey,
    );
    expect(minor.value).toMatchObject({
      published_version: '1.1.0',
      latest_version: '1.1.0',
      versions: expect.arrayContaining([
        expect.objectContaining({ version: '1.0.0' }),
        expect.objectContaining({ version: '1.1.0' }),
      ]),
    });
    // Without --token the call is signed: no key file, no call.
    const unsigned = await cliJson(['jobs', 'workflow', 'publish', job._id, workflowId], noKey);
    expect([unsigned.code, unsigned.value.error.code]).toEqual([1, 'sdk_missing_key']);
    const forged = await cliJson(['jobs', 'workflow', 'publish', job._id, workflowId, '--token', `${token}x`], noKey);
    expect([forged.code, forged.value.error.status]).toEqual([1, 401]);
    const noName = await cliJson(['jobs', 'workflow', 'create', job._id, '--token', token], noKey);
    expect([noName.code, noName.value.error.code]).toEqual([2, 'sdk_bad_input']);
  });
});
