import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildSync } from 'esbuild';

const ROOT = path.resolve(__dirname, '../..');
/**
 * The operator CLI compiled once per test run (global-setup.ts), as production runs it compiled
 * (`node dist/scripts/admin.js`) rather than through tsx, which costs seconds of CPU per command.
 * Two folders below the root, where scripts/services/paths.ts finds the root from its own folder.
 */
const BUNDLE = path.join(ROOT, '.cache/test-cli/admin.js');

/** Compiles scripts/admin.ts into one file; its packages stay in node_modules. */
export function buildAdminCli(): void {
  buildSync({
    entryPoints: [path.join(ROOT, 'scripts/admin.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outfile: BUNDLE,
    logLevel: 'warning',
  });
}

const run = promisify(execFile);

/**
 * The real CLI as an operator runs it: a fresh process, its stdout as printed. Rejects as execFile
 * does on a non-zero exit (`code`, `stdout`, `stderr` on the error).
 */
export async function adminCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const { stdout } = await run(process.execPath, [BUNDLE, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  return stdout;
}

/** A command with `--json`: its one JSON value. */
export async function adminJson(...args: string[]): Promise<any> {
  return JSON.parse(await adminCli([...args, '--json']));
}
