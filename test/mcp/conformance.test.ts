import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolRepository } from '../../shared/tools/repository';
import { startBearerProxy, startConformanceFixtures } from '../support/mcp-fixtures';
import { startTestStack, TestStack } from '../support/stack';

const ROOT = join(__dirname, '../..');
const CLI = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
// The suite imports fs.globSync (Node >= 22): scripts/bootstrap.sh links PyPI's Node 24 here.
const NODE24 = join(ROOT, '.cache/bin/node24');
/** The scenarios expected to fail, each with its reason (the CLI fails on any other failure, and on a stale entry). */
const EXPECTED_FAILURES = join(__dirname, 'conformance-expected-failures.yaml');

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
  details?: Record<string, unknown>;
}

/** Every checks.json the CLI wrote under `dir`, by scenario (the folder it wrote them in). */
function checksUnder(dir: string, scenario = ''): Array<Check & { scenario: string }> {
  const out: Array<Check & { scenario: string }> = [];
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    // The CLI writes each scenario's checks under server-<scenario>-<timestamp>/.
    const named = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(name)?.[1];
    if (statSync(path).isDirectory()) out.push(...checksUnder(path, scenario || named || ''));
    else if (name === 'checks.json')
      out.push(...(JSON.parse(readFileSync(path, 'utf8')) as Check[]).map((c) => ({ ...c, scenario })));
  }
  return out;
}

/**
 * The `scenario:check-id` entries of the expected-failures file. The CLI holds only the scored
 * scenarios to it (not the tasks-* ones, which 2026-07-28 runs unscored): the test holds every
 * scenario it ran to it, both ways.
 */
function expectedFailures(): string[] {
  return readFileSync(EXPECTED_FAILURES, 'utf8')
    .split('\n')
    .map((line) => /^\s+-\s+(\S+:\S+)\s*$/.exec(line)?.[1])
    .filter((entry): entry is string => entry !== undefined);
}

function runSuite(args: string[], outDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      NODE24,
      [CLI, 'server', ...args, '--expected-failures', EXPECTED_FAILURES, '-o', outDir, '--timeout', '20000'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('@modelcontextprotocol/conformance server scenarios against our /mcp', () => {
  let stack: TestStack;
  let fixtures: Awaited<ReturnType<typeof startConformanceFixtures>>;
  let proxy: Awaited<ReturnType<typeof startBearerProxy>>;
  let outRoot: string;

  beforeAll(async () => {
    // The suite's fixture tools and resources served (a test setting); its task fixtures are an
    // agent group's workflows, run by the real workers on the Temporal dev server.
    stack = await startTestStack({ workers: true, env: { MCP_CONFORMANCE_FIXTURES: 'true' } });
    fixtures = await startConformanceFixtures(stack);
    // The CLI sends no credentials: every request reaches /mcp as the fixtures' agent group.
    proxy = await startBearerProxy(stack.server.mainUrl, fixtures.group.token);
    // One catalog tool, so the header scenarios have a tool to name (a call of it is never paid here).
    const repo = new ToolRepository(stack.db.models);
    await repo.createProduct({ slug: 'echo', name: 'echo', description: 'Echoes' });
    await repo.addAction('echo', {
      slug: 'say',
      description: 'Says the text back',
      credits: 1,
      parameters_schema: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false },
      runner: { kind: 'http', url: 'http://127.0.0.1:9/say', method: 'POST', timeout_ms: 1000 },
    });
    // CONFORMANCE_OUT keeps the suite's checks.json files for a look after the run.
    outRoot = process.env.CONFORMANCE_OUT ?? mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  }, 120_000);
  afterAll(async () => {
    if (!process.env.CONFORMANCE_OUT) rmSync(outRoot, { recursive: true, force: true });
    await proxy?.stop();
    await fixtures?.vendor.stop();
    await stack?.stop();
  });

  // The scenarios 2026-07-28 requires of a server, and those it runs unscored: the tasks
  // extension's ten among them. One run of the suite (about a minute against the real stack).
  it('the 2026-07-28 requirements, tasks-* included: no failure but the expected ones', async () => {
    const outDir = join(outRoot, 'requirements-2026-07-28');
    const { code, output } = await runSuite(['--requirements', '2026-07-28', '--url', `${proxy.url}/mcp`], outDir);
    const checks = checksUnder(outDir);
    const scenarios = new Set(checks.map((c) => c.scenario));
    expect(scenarios.size).toBeGreaterThan(40);
    expect([...scenarios].filter((s) => s.startsWith('tasks-')).length).toBe(10);
    if (code !== 0) throw new Error(output.slice(-8000));
    const key = (c: { scenario: string; id: string }) => `${c.scenario}:${c.id}`;
    const expected = expectedFailures();
    const failing = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    expect({
      // A failure the file does not list (an unscored scenario's too).
      unexpected: [...new Set(failing.map(key))].filter((k) => !expected.includes(k)),
      // An entry whose check passes now, or that names no check the suite ran.
      stale: expected.filter((k) => !failing.some((c) => key(c) === k)),
    }).toEqual({ unexpected: [], stale: [] });
    // The suite only reports what a cancelled slow_compute settled to; it must be `cancelled`, and
    // in the store too: the task was the fixture group's webhook run on Temporal.
    const cancel = checks.find((c) => c.scenario === 'tasks-lifecycle' && c.id === 'sep-2663-cancel-ack-empty-result');
    expect(cancel?.details?.statusAfterCancel).toBe('cancelled');
    const runs = await stack.db.models.webhookRuns.find({ group_id: fixtures.group.groupId }).lean();
    expect(runs.filter((r) => r.status === 'cancelled').length).toBeGreaterThan(0);
    expect(runs.filter((r) => r.status === 'completed').length).toBeGreaterThan(0);
  }, 300_000);
});
