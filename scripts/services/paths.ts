import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
export const CACHE = path.join(ROOT, '.cache');

export function temporalCli(): string {
  return requireFile(path.join(CACHE, 'venv/bin/temporal'));
}

export function temporalTestServer(): string {
  return requireFile(path.join(CACHE, 'venv/bin/temporal-test-server'));
}

export function ferretdbBinary(): string {
  return requireFile(path.join(CACHE, 'bin/ferretdb'));
}

function requireFile(p: string): string {
  if (!fs.existsSync(p)) throw new Error(`${p} is missing: run scripts/bootstrap.sh (make dev / make test do)`);
  return p;
}
