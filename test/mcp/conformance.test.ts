import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestStack, TestStack } from '../support/stack';

const ROOT = join(__dirname, '../..');
const CLI = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
// The CLI imports fs.globSync (Node 22) at load; the hook gives it a stand-in on Node 20.
const NODE20_HOOK = join(ROOT, 'test/support/conformance/register.mjs');

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** Every checks.json the CLI wrote under `dir`. */
function checksUnder(dir: string): Check[] {
  const out: Check[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...checksUnder(path));
    else if (name === 'checks.json') out.push(...(JSON.parse(readFileSync(path, 'utf8')) as Check[]));
  }
  return out;
}

function runScenario(url: string, scenario: string, outDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', NODE20_HOOK, CLI, 'server', '--url', url, '--scenario', scenario, '-o', outDir],
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
  let outRoot: string;

  beforeAll(async () => {
    stack = await startTestStack();
    outRoot = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  }, 120_000);
  afterAll(async () => {
    rmSync(outRoot, { recursive: true, force: true });
    await stack?.stop();
  });

  // The scenarios that apply to a server without the suite's fixture tools, prompts and resources.
  it.each(['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'])(
    '%s passes',
    async (scenario) => {
      const outDir = join(outRoot, scenario);
      const { code, output } = await runScenario(`${stack.server.mainUrl}/mcp`, scenario, outDir);
      const checks = checksUnder(outDir);
      expect(checks.filter((c) => c.status === 'SUCCESS').length).toBeGreaterThan(0);
      const failed = checks.filter((c) => c.status === 'FAILURE');
      expect({ scenario, failed, code }).toEqual({ scenario, failed: [], code: 0 });
      if (code !== 0) throw new Error(output);
    },
    120_000,
  );
});
