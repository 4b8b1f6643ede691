/**
 * Checks that package-lock.json can install on every platform we support: each package's
 * optional dependencies (the per-platform binaries of anvil, swc, esbuild...) have their own
 * entry. npm (10.3 and later, npm/cli#7961) leaves out the other platforms' variants when it
 * writes the lock over an existing node_modules, e.g. after `npm install <pkg>`; such a lock makes
 * `npm ci` fail on macOS or arm64, and a fresh clone's install rewrites it (a dirty checkout).
 * Pure: reads the lock, prints what is missing, exits 1 if anything is.
 */
import fs from 'node:fs';
import path from 'node:path';

interface LockEntry {
  optionalDependencies?: Record<string, string>;
  os?: string[];
  cpu?: string[];
}

/** The lock path npm would resolve `name` to from the package at `from` (nearest node_modules up the tree). */
function resolves(packages: Record<string, LockEntry>, from: string, name: string): boolean {
  for (let dir = from; ;) {
    if (`${dir ? `${dir}/` : ''}node_modules/${name}` in packages) return true;
    const up = dir.lastIndexOf('/node_modules/');
    if (dir === '') return false;
    dir = up < 0 ? '' : dir.slice(0, up);
  }
}

/** Optional dependencies the lock names but holds no entry for, as `package -> dependency`. */
export function missingOptionalEntries(lock: { packages: Record<string, LockEntry> }): string[] {
  const missing: string[] = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {}))
      if (!resolves(lock.packages, where, name)) missing.push(`${where || '(root)'} -> ${name}`);
  }
  return missing;
}

if (require.main === module) {
  const file = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'package-lock.json'));
  const missing = missingOptionalEntries(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (missing.length) {
    console.error(
      `${file} lacks ${missing.length} optional dependencies (other platforms' binaries):\n  ${missing.join('\n  ')}\n` +
        'npm left them out because it wrote the lock over an existing node_modules. Regenerate it from a clean tree:\n' +
        '  rm -rf node_modules sdk/node_modules && npm install',
    );
    process.exit(1);
  }
}
