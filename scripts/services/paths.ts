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

/**
 * A PostgreSQL server program (`postgres`, `initdb`) from Debian's package: the newest major
 * version under /usr/lib/postgresql, or the folder named by PG_BIN_DIR.
 */
export function postgresBin(name: 'postgres' | 'initdb' | 'psql'): string {
  if (process.env.PG_BIN_DIR) return requireFile(path.join(process.env.PG_BIN_DIR, name));
  const root = '/usr/lib/postgresql';
  const majors = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((d) => /^\d+$/.test(d))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const found = majors.map((m) => path.join(root, m, 'bin', name)).find((p) => fs.existsSync(p));
  if (!found)
    throw new Error(
      `PostgreSQL's ${name} is missing (looked in ${root}/*/bin): run scripts/bootstrap.sh (make dev / make test do)`,
    );
  return found;
}

function requireFile(p: string): string {
  if (!fs.existsSync(p)) throw new Error(`${p} is missing: run scripts/bootstrap.sh (make dev / make test do)`);
  return p;
}
